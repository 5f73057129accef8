"""The report of ``dp-arena verify``: one :class:`Check` a line, and the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dp_arena.keys import EventKey
from dp_arena.runner.replay import Replay

__all__ = ["Check", "Verification"]

_SHOWN = 5  # problems listed per check; the rest are counted


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a run: its name, whether it passed, what was checked or found."""

    name: str
    passed: bool
    detail: str
    problems: tuple[str, ...] = ()


@dataclass(slots=True)
class Verification:
    """Every check of one run directory."""

    run_dir: Path
    key: EventKey | None = None
    checks: list[Check] = field(default_factory=list)
    digest: str | None = None  # the results digest of the files, computed again
    replay: Replay | None = None  # what a replay played and found
    refused: list[str] = field(default_factory=list)  # why the replay was not played

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks) and not self.refused

    @property
    def status(self) -> int:
        """The command's exit status: 0 when every check passed, 1 when one failed, 2 when
        none failed but the replay asked for could not be played."""
        if self.passed:
            return 0
        return 2 if all(check.passed for check in self.checks) else 1

    def refuse(self, *reasons: str) -> None:
        self.refused += reasons

    def report(self) -> str:
        lines = [f"verifying {self.run_dir}"]
        if self.key is not None:
            lines.append(f"  key {self.key.hex}")
            if self.key.public:
                lines.append("  (a public seed: these decks were predictable to anyone)")
        if self.digest is not None:
            lines.append(f"  results digest {self.digest}")
        for check in self.checks:
            lines.append(f"{'ok' if check.passed else 'FAILED':>6}  {check.name}: {check.detail}")
            lines += [f"          - {problem}" for problem in check.problems[:_SHOWN]]
            if len(check.problems) > _SHOWN:
                lines.append(f"          ... and {len(check.problems) - _SHOWN} more")
        if self.refused:
            lines.append("REFUSED  replay: the event's table-sessions cannot be played again")
            lines += [f"          - {reason}" for reason in self.refused]
        verdict = (
            "every check passed"
            if self.passed
            else "THE RUN COULD NOT BE REPLAYED"
            if self.status == 2
            else "THE RUN DOES NOT VERIFY"
        )
        lines.append(verdict)
        return "\n".join(lines) + "\n"

    def add(self, name: str, problems: Sequence[str], detail: str) -> None:
        self.checks.append(
            Check(
                name, not problems, detail if not problems else _failed(problems), tuple(problems)
            )
        )


def _failed(problems: Sequence[str]) -> str:
    return f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
