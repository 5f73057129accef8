"""The player to act's ``infos`` entry builds its typed observation only when read, and
reads exactly what an eagerly built one would hold."""

from __future__ import annotations

import json

import pytest

from dp_arena.agents import observe
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.encoding import encode, encode_hand


def _env():  # type: ignore[no-untyped-def]
    env = capped_holdem_v0.env(num_players=3, deals=3)
    env.reset(seed=11)
    return env


def test_info_reads_as_a_plain_dict_with_the_observation() -> None:
    env = _env()
    agent = env.agent_selection
    info = env.infos[agent]
    raw = env.unwrapped
    table, seat = raw.seat_of[agent]
    expected = observe(raw.hands[table], seat, raw.contexts[table][seat])
    assert "observation" in info
    assert info["observation"] == expected
    assert info.get("observation") == expected
    assert list(info) == ["observation"] and len(info) == 1
    assert dict(info) == {"observation": expected}
    assert info == {"observation": expected}
    assert json.loads(json.dumps({key: value.to_json() for key, value in info.items()}))


def test_an_unread_info_of_a_played_step_says_so() -> None:
    env = _env()
    info = env.infos[env.agent_selection]
    env.step(1)  # check or call
    with pytest.raises(KeyError, match="before calling step"):
        info["observation"]


def test_a_read_info_stays_readable_after_its_step() -> None:
    env = _env()
    info = env.infos[env.agent_selection]
    observation = info["observation"]
    env.step(1)
    assert info["observation"] is observation


@pytest.mark.parametrize("seed", range(5))
def test_vectors_from_the_hand_equal_vectors_from_the_observation(seed: int) -> None:
    env = capped_holdem_v0.env(num_players=4, deals=4)
    env.reset(seed=seed)
    raw = env.unwrapped
    steps = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        table, seat = raw.seat_of[agent]
        hand = raw.hands[table]
        for other in raw.agents:
            other_table, other_seat = raw.seat_of[other]
            assert (
                encode_hand(
                    raw.hands[other_table], other_seat, raw.contexts[other_table][other_seat]
                )
                == encode(raw.view(other))
            ).all()
        assert (
            encode_hand(hand, seat, raw.contexts[table][seat]) == encode(info["observation"])
        ).all()
        mask = env.observe(agent)["action_mask"]
        env.step(int(mask.nonzero()[0][-1]))
        steps += 1
    assert steps > 0
