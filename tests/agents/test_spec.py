"""Agent specs: a ``registry:`` spec is read as a bot of the registry, never as a command."""

from __future__ import annotations

import pytest

from dp_arena.agents import SpecKind, parse_spec
from dp_arena.errors import AgentError


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("registry:alice", "alice"),
        ("registry:alice@2", "alice@2"),
        ("registry:/srv/bots#alice@2", "alice@2"),
        ("  registry:bob@1 ", "bob@1"),
    ],
)
def test_a_registry_spec_is_its_own_kind(text: str, reference: str) -> None:
    spec = parse_spec(text)
    assert spec.kind is SpecKind.REGISTRY and spec.target == reference
    assert spec.name == reference.partition("@")[0] and not spec.is_python


@pytest.mark.parametrize("text", ["registry:", "registry:@2", "registry:/srv/bots#"])
def test_a_registry_spec_that_names_no_bot_is_refused(text: str) -> None:
    with pytest.raises(AgentError, match="names no bot"):
        parse_spec(text)


def test_cmd_forces_a_command_even_for_a_registry_like_name() -> None:
    spec = parse_spec("cmd:registry:alice")
    assert spec.kind is SpecKind.COMMAND and spec.target == ("registry:alice",)
