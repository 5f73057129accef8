"""Small HTML pieces of the leaderboard page: table cells and tables (every value
escaped with :func:`~dp_arena.leaderboard.charts.text`; a wide table scrolls inside its
own box, never the page), and the number formats every part of the page shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dp_arena.leaderboard.charts import text

__all__ = ["Cell", "interval", "mbb", "money", "place", "table"]


def mbb(value: float | None) -> str:
    return "–" if value is None else f"{value:+,.1f}"


def interval(pair: Sequence[float | None]) -> str:
    return f"{mbb(pair[0])} … {mbb(pair[1])}"


def money(cents: int) -> str:
    sign = "−" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def place(first: Any, last: Any) -> str:
    return str(first) if first == last else f"{first}–{last}"


@dataclass(frozen=True, slots=True)
class Cell:
    """A table cell: ``shown`` as text (escaped), sorted by ``value`` when given, with
    optional CSS classes, an optional link target inside the page (``link``) or to a
    file beside it (``href``, relative), and an optional ``note`` in smaller type after it."""

    shown: Any
    value: Any = None
    css: str = ""
    link: str | None = None
    note: str | None = None
    href: str | None = None

    def html(self) -> str:
        css = f' class="{self.css}"' if self.css else ""
        value = "" if self.value is None else f' data-value="{text(self.value)}"'
        content = text(self.shown)
        if self.link is not None:
            content = f'<a href="#{text(self.link)}">{content}</a>'
        elif self.href is not None:
            content = f'<a href="{text(self.href)}">{content}</a>'
        if self.note:
            content += f' <span class="note">{text(self.note)}</span>'
        return f"<td{css}{value}>{content}</td>"


def table(
    headers: Sequence[str | tuple[str, str]],
    rows: Sequence[Sequence[Cell]],
    *,
    sortable: bool = False,
    identifier: str | None = None,
    css: str = "",
) -> str:
    """A table in a box that scrolls sideways when the table is wider than the page; a
    header given as (text, css class) gets that class."""
    head = "".join(
        f'<th class="{header[1]}">{text(header[0])}</th>'
        if isinstance(header, tuple)
        else f"<th>{text(header)}</th>"
        for header in headers
    )
    body = "".join("<tr>" + "".join(cell.html() for cell in row) + "</tr>" for row in rows)
    classes = " ".join(part for part in ("sortable" if sortable else "", css) if part)
    attributes = (f' class="{classes}"' if classes else "") + (
        f' id="{identifier}"' if identifier else ""
    )
    return (
        f'<div class="scroll"><table{attributes}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
