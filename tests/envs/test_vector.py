"""The native vector environment against its oracle, the single environment: played side
by side with Gymnasium's ``SyncVectorEnv`` of ``SingleAgentEnv`` copies, every array of
every step is equal (observations, masks, rewards, terminations, the typed observations
of ``infos``), in each autoreset mode; native opponents decide as the bots they stand
for; illegal actions are refused before any table moves."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.envs.batch import tables as batch_tables
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason


def _pair(num_envs: int, mode: AutoresetMode, **kwargs: Any) -> tuple[Any, SyncVectorEnv]:
    vector = gymnasium.make_vec(
        ENV_ID,
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        **kwargs,
    )
    kwargs.pop("native_opponents", None)
    oracle = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, **kwargs) for _ in range(num_envs)], autoreset_mode=mode
    )
    return vector, oracle


def _assert_same(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for key in theirs:
            _assert_same(ours[key], theirs[key])
    else:
        assert np.array_equal(ours, theirs), (ours, theirs)


def _play_side_by_side(
    vector: Any, oracle: SyncVectorEnv, *, seed: int, steps: int, views: bool = True
) -> int:
    observations, infos = vector.reset(seed=seed)
    expected, expected_infos = oracle.reset(seed=seed)
    _assert_same(observations, expected)
    rng = np.random.default_rng(seed)
    episodes = 0
    for _ in range(steps):
        masks = infos["action_mask"].astype(bool)
        assert np.array_equal(masks, expected_infos["action_mask"].astype(bool))
        if views:
            assert vector.unwrapped.views() == [
                info if live else None
                for info, live in zip(
                    expected_infos.get("observation", [None] * len(masks)),
                    expected_infos.get("_observation", [False] * len(masks)),
                    strict=True,
                )
            ]
        actions = np.array(
            [int(rng.choice(np.flatnonzero(row))) if row.any() else 0 for row in masks]
        )
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        expected, expected_rewards, expected_terminated, expected_truncated, expected_infos = (
            oracle.step(actions)
        )
        _assert_same(observations, expected)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated)
        assert np.array_equal(truncated, expected_truncated)
        if "final_obs" in expected_infos:
            ours_final = infos["final_obs"][terminated]
            _assert_same(ours_final, np.stack(expected_infos["final_obs"][terminated]))
        episodes += int(terminated.sum())
    return episodes


@pytest.mark.parametrize(
    ("opponents", "betting", "format_"),
    [
        (["random"], "no-limit", "dict"),
        (["tag"], "pot-limit", "flat"),
        (["random", "calling-station"], "no-limit", "flat"),
        (["aggressive", "random", "tag", "calling-station", "equity"], "no-limit", "dict"),
        (["calling-station"], "pot-limit", "dict"),
        (["random"] * 5, "no-limit", "flat"),
        (["random", "calling-station", "random", "random", "calling-station"], "pot-limit", "dict"),
    ],
)
def test_every_step_equals_the_single_env_beside_it(
    opponents: list[str], betting: str, format_: str
) -> None:
    players = len(opponents) + 1
    vector, oracle = _pair(
        5,
        AutoresetMode.NEXT_STEP,
        opponents=opponents,
        betting=betting,
        deals=players,
        observation_format=format_,
    )
    assert isinstance(vector, SingleAgentVectorEnv)
    # The built-in bots but the equity bot are played as one batch.
    assert vector.batched == all(name in batch_tables.BATCH_OPPONENTS for name in opponents)
    assert _play_side_by_side(vector, oracle, seed=17, steps=120) > 5


@pytest.mark.parametrize(
    ("opponents", "options"),
    [
        (["random"], {"cap": 20, "blinds": (10, 20)}),  # the big blind is all-in at once
        (["random", "random"], {"cap": 20, "blinds": (20, 20)}),  # both blinds all-in
        (["random", "random"], {"cap": 45, "raise_sizes": ("min", 0.33, 2.5)}),
        (["calling-station", "random", "random"], {"cap": 200, "betting": "pot-limit"}),
        (["random"] * 8, {"cap": 300, "raise_sizes": (0.75, "all-in")}),
    ],
)
def test_the_batch_equals_the_single_env_at_small_caps_and_other_sizes(
    opponents: list[str], options: dict[str, Any]
) -> None:
    players = len(opponents) + 1
    vector, oracle = _pair(
        6, AutoresetMode.NEXT_STEP, opponents=opponents, deals=2 * players, **options
    )
    assert vector.batched
    _play_side_by_side(vector, oracle, seed=29, steps=60)


@pytest.mark.parametrize("learner_seat", [0, 2, 5])
def test_the_batch_with_the_learner_in_any_seat(learner_seat: int) -> None:
    vector, oracle = _pair(
        4,
        AutoresetMode.NEXT_STEP,
        opponents=["random", "calling-station", "random", "random", "random"],
        learner_seat=learner_seat,
        deals=6,
        observation_format="flat",
    )
    assert vector.batched
    assert _play_side_by_side(vector, oracle, seed=5, steps=80) > 0


@pytest.mark.parametrize("learner_seat", [0, 1, 2])
def test_the_learner_in_every_seat_and_without_native_opponents(learner_seat: int) -> None:
    vector, oracle = _pair(
        4,
        AutoresetMode.NEXT_STEP,
        opponents=["random", "random"],
        learner_seat=learner_seat,
        deals=6,
        native_opponents=False,
    )
    assert not vector.unwrapped.batched
    assert not any(table.native for table in vector.unwrapped.tables.tables)
    assert _play_side_by_side(vector, oracle, seed=3, steps=80) > 0


@pytest.mark.parametrize("left_limit", [256, 2])
def test_deals_the_learner_folded_out_of_are_settled_when_viewed(
    left_limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch does not play on a deal the learner folded out of (nothing it returns
    depends on the rest); the other seats' nets, which the typed observations show, are
    found by playing those deals on when asked: here only after many steps (or every
    ``left_limit`` deals), and they equal the single env's."""
    monkeypatch.setattr(batch_tables, "_LEFT_LIMIT", left_limit)
    vector, oracle = _pair(
        4,
        AutoresetMode.NEXT_STEP,
        opponents=["random", "calling-station", "random"],
        deals=40,
        observation_format="flat",
    )
    observations, infos = vector.reset(seed=13)
    expected, expected_infos = oracle.reset(seed=13)
    rng = np.random.default_rng(13)
    for _ in range(150):
        masks = infos["action_mask"].astype(bool)
        # Fold whenever folding is allowed, so that many deals go on without the learner.
        actions = np.array(
            [
                0 if row[0] else int(rng.choice(np.flatnonzero(row))) if row.any() else 0
                for row in masks
            ]
        )
        observations, rewards, terminated, _, infos = vector.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = oracle.step(actions)
        _assert_same(observations, expected)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated)
    assert any(vector.unwrapped.tables.left) or left_limit == 2
    assert vector.unwrapped.views() == [
        info if live else None
        for info, live in zip(
            expected_infos["observation"], expected_infos["_observation"], strict=True
        )
    ]
    assert not any(vector.unwrapped.tables.left)


@pytest.mark.parametrize(
    ("opponents", "deals"), [(["calling-station"], 2), (["random", "calling-station", "random"], 4)]
)
def test_same_step_autoreset_gives_the_final_observations(opponents: list[str], deals: int) -> None:
    vector, oracle = _pair(
        4,
        AutoresetMode.SAME_STEP,
        opponents=opponents,
        deals=deals,
        observation_format="flat",
    )
    assert _play_side_by_side(vector, oracle, seed=8, steps=60, views=False) > 4


def test_disabled_autoreset_resets_the_chosen_tables() -> None:
    vector = SingleAgentVectorEnv(
        num_envs=3, opponents=["random"], deals=2, autoreset_mode="Disabled"
    )
    vector.reset(seed=1)
    for _ in range(40):
        *_, done, _, infos = vector.step(np.ones(3, dtype=np.int64))
        if done.any():
            # An ended table's mask allows check/call alone, the action a reset ignores.
            assert infos["action_mask"][done].tolist() == [[0, 1, 0, 0, 0, 0]] * done.sum()
            with pytest.raises(ValueError, match="reset it first"):
                vector.step(np.ones(3, dtype=np.int64))
            _, infos = vector.reset(options={"reset_mask": done})
            assert infos["action_mask"].any(axis=1).all()
            return
    raise AssertionError("no episode ended")


def test_native_opponents_decide_as_the_bots_they_stand_for() -> None:
    kwargs: dict[str, Any] = {"num_envs": 6, "opponents": ["random", "calling-station"], "deals": 9}
    native = SingleAgentVectorEnv(**kwargs)
    played = SingleAgentVectorEnv(**kwargs, native_opponents=False)
    assert native.batched and not played.batched
    first, _ = native.reset(seed=40)
    second, _ = played.reset(seed=40)
    rng = np.random.default_rng(0)
    for _ in range(150):
        _assert_same(first, second)
        masks = native.action_masks().astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(r)) if r.any() else 0 for r in masks])
        first, rewards, *_ = native.step(actions)
        second, expected_rewards, *_ = played.step(actions)
        assert np.array_equal(rewards, expected_rewards)


def test_seeds_follow_sync_vector_env_and_a_list_seeds_each_table() -> None:
    vector = SingleAgentVectorEnv(num_envs=3, opponents=["random"], deals=2)
    by_offset, _ = vector.reset(seed=10)
    by_list, _ = vector.reset(seed=[10, 11, 12])
    _assert_same(by_offset, by_list)
    reversed_, _ = vector.reset(seed=[12, 11, 10])
    assert np.array_equal(reversed_["observation"][0], by_offset["observation"][2])
    with pytest.raises(ValueError, match="2 seeds for 3"):
        vector.reset(seed=[1, 2])


@pytest.mark.parametrize("opponents", [["random"], ["tag"]])  # batched, table by table
def test_a_bad_seed_is_refused_before_any_table_moves_on(opponents: list[str]) -> None:
    refused = SingleAgentVectorEnv(num_envs=3, opponents=opponents, deals=2)
    untouched = SingleAgentVectorEnv(num_envs=3, opponents=opponents, deals=2)
    refused.reset(seed=4)
    untouched.reset(seed=4)
    for bad in (-1, True, "7"):
        with pytest.raises(ValueError, match="non-negative integer"):
            refused.reset(seed=[5, bad, 6])  # type: ignore[list-item]
    # The tables go on to their next sessions as if the bad resets had not been asked for.
    _assert_same(refused.reset()[0], untouched.reset()[0])


def test_a_masked_action_is_refused_before_any_table_moves() -> None:
    vector = SingleAgentVectorEnv(num_envs=3, opponents=["calling-station"], deals=2)
    vector.reset(seed=2)
    histories = [len(view.history) for view in vector.views() if view is not None]
    masks = vector.action_masks()
    actions = np.ones(3, dtype=np.int64)
    actions[2] = 9
    with pytest.raises(IllegalActionError, match=r"environment 2: action 9 is outside") as caught:
        vector.step(actions)
    assert caught.value.reason is IllegalReason.UNKNOWN_ACTION
    assert [len(view.history) for view in vector.views() if view is not None] == histories
    assert np.array_equal(vector.action_masks(), masks)
    with pytest.raises(IllegalActionError, match="integers"):
        vector.step(np.ones(3))


def test_bad_arguments_name_the_field() -> None:
    with pytest.raises(ConfigError) as caught:
        SingleAgentVectorEnv(num_envs=0)
    assert caught.value.field == "num_envs"
    with pytest.raises(ConfigError) as caught:
        SingleAgentVectorEnv(autoreset_mode="sometimes")
    assert caught.value.field == "autoreset_mode"
    with pytest.raises(ConfigError) as caught:
        SingleAgentVectorEnv(opponents=["random"], deals=3)
    assert caught.value.field == "deals"


def test_the_duplicate_reward_of_the_reference_itself_is_zero() -> None:
    """A learner that plays exactly as the reference (always check or call, as the calling
    station does) gets a duplicate reward of 0 on every deal; the raw reward is not 0."""
    kwargs: dict[str, Any] = {"num_envs": 4, "opponents": ["random"], "deals": 6}
    duplicate = SingleAgentVectorEnv(**kwargs, reward="duplicate", reference="calling-station")
    raw = SingleAgentVectorEnv(**kwargs)
    duplicate.reset(seed=12)
    raw.reset(seed=12)
    raw_total = 0.0
    for _ in range(60):
        _, rewards, *_ = duplicate.step(np.ones(4, dtype=np.int64))
        _, raw_rewards, *_ = raw.step(np.ones(4, dtype=np.int64))
        assert not rewards.any()
        raw_total += float(np.abs(raw_rewards).sum())
    assert raw_total > 0


def test_the_duplicate_reward_is_the_net_minus_the_references_net() -> None:
    """Oracle: the reference (tag) playing the learner's seat in the single env, the same
    seeds, against the same opponent; the duplicate rewards of a session add up to the
    learner's net minus that net."""
    from dp_arena.agents import load_agent

    duplicate = SingleAgentVectorEnv(
        num_envs=1, opponents=["random"], deals=8, reward="duplicate", reference="tag"
    )
    raw = SingleAgentVectorEnv(num_envs=1, opponents=["random"], deals=8)
    duplicate.reset(seed=21)
    raw.reset(seed=21)
    rng = np.random.default_rng(2)
    duplicate_total = raw_total = 0.0
    while True:
        mask = raw.action_masks()[0]
        action = np.array([rng.choice(np.flatnonzero(mask))])
        _, rewards, terminated, *_ = duplicate.step(action)
        _, raw_rewards, *_ = raw.step(action)
        duplicate_total += float(rewards[0])
        raw_total += float(raw_rewards[0])
        if terminated[0]:
            break
    reference = gymnasium.make(ENV_ID, opponents=["random"], deals=8).unwrapped
    _, info = reference.reset(seed=21)
    tag = load_agent("tag")
    reference_total = 0.0
    while True:
        _, reward, terminated, _, info = reference.step(tag.act(info["observation"]))
        reference_total += reward
        if terminated:
            break
    assert duplicate_total == pytest.approx(raw_total - reference_total)
    assert reference_total != 0
