"""Self-play: the league's prioritised sampling, frozen snapshots, and the trainer that
plays its line-ups in the vector environment's batch (snapshots included), seeded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from dp_arena.errors import ConfigError
from dp_arena.learn import League, LinearPolicy, SelfPlayConfig, train_self_play
from dp_arena.learn.recipe import load_recipe

REPO = Path(__file__).resolve().parents[2]
# A run small enough for a test: one six-max and one heads-up line-up an iteration.
TINY = {"decisions": 1500, "tables": 16, "lineups": 2, "six_max": 1}


def test_the_league_draws_the_members_the_learner_beats_least_most_often() -> None:
    league = League(weighting="hard", seed=1)
    for name in ("tag", "random", "aggressive"):
        league.add(name)
    league.record("random", [1.0] * 30)  # beaten every time
    league.record("tag", [0.0] * 30)  # never beaten
    chances = league.probabilities()
    assert chances["tag"] > chances["aggressive"] > chances["random"]
    assert sum(chances.values()) == pytest.approx(1.0)
    drawn = [member.name for member in league.sample(2000)]
    assert drawn.count("tag") > drawn.count("aggressive") > drawn.count("random")
    for weighting, first in (("variance", "aggressive"), ("uniform", None), ("linear", "tag")):
        other = League(weighting=weighting)
        for name in ("tag", "random", "aggressive"):
            other.add(name)
        other.record("random", [1.0] * 30)
        other.record("tag", [0.0] * 30)
        shares = other.probabilities()
        if first is None:
            assert len(set(shares.values())) == 1
        else:
            assert max(shares, key=shares.__getitem__) == first
    with pytest.raises(ConfigError, match="weighting"):
        League(weighting="greedy")


def test_snapshots_are_frozen_and_the_oldest_goes_first() -> None:
    league = League(capacity=2)
    league.add("tag")
    policy = LinearPolicy.zeros(feature_set="vector")
    names = [league.add_snapshot(policy) for _ in range(3)]
    policy.weights += 1.0
    assert list(league.members) == ["tag", *names[1:]]
    snapshot = league.members[names[-1]].opponent
    assert not snapshot.weights.any()  # training the learner never moves a snapshot
    league.record([names[0], "tag"], [1.0])  # a member let go is skipped
    assert league.members["tag"].sessions == 1


def test_the_league_draws_among_the_members_that_are_not_snapshots_on_request() -> None:
    league = League(seed=2)
    league.add("tag")
    league.add("random")
    snapshot = league.add_snapshot(LinearPolicy.zeros(feature_set="vector"))
    league.record("tag", [1.0] * 8)  # the snapshot and random are drawn more than tag
    assert set(league.probabilities()) == {"tag", "random", snapshot}
    without = league.probabilities(snapshots=False)
    assert set(without) == {"tag", "random"} and sum(without.values()) == pytest.approx(1.0)
    # Among the two left, the shares keep their ratio.
    every = league.probabilities()
    assert without["random"] / without["tag"] == pytest.approx(every["random"] / every["tag"])
    assert {member.name for member in league.sample(200, snapshots=False)} == {"tag", "random"}
    alone = League()
    alone.add_snapshot(LinearPolicy.zeros(feature_set="vector"))
    with pytest.raises(ConfigError, match="no members"):
        alone.sample(snapshots=False)
    with pytest.raises(ConfigError, match="snapshots_in"):
        SelfPlayConfig(snapshots_in="heads-up")


def test_self_play_is_seeded_and_its_snapshots_play_in_the_batch() -> None:
    config = SelfPlayConfig(
        iterations=3, decisions=3000, tables=32, lineups=2, six_max=1, snapshot_every=1, seed=4
    )
    first, league = train_self_play(config)
    second, _ = train_self_play(config)
    assert np.array_equal(first.weights, second.weights)
    assert first.feature_set == "vector" and first.weights.any()
    snapshots = [member for member in league.members.values() if member.snapshot]
    assert [member.name for member in snapshots][-1] == "learned-3"
    assert sum(member.sessions for member in league.members.values()) > 0
    # The weights round-trip as a vector policy, which the batch plays.
    assert LinearPolicy.from_json(first.to_json()).feature_set == "vector"


def test_a_self_play_recipe_loads_and_bad_fields_are_named(tmp_path: Path) -> None:
    recipe = load_recipe(REPO / "configs" / "learned.toml")  # the shipped bot's: self-play
    assert isinstance(recipe.train, SelfPlayConfig)
    assert recipe.train.step < 1 and recipe.train.keep >= recipe.train.iterations
    # Its self-play starts from the fitted recipe's weights, shipped beside the bot.
    assert (
        Path(recipe.train.warm_start).resolve() == REPO / "agents" / "learned_fitted_weights.json"
    )
    fitted = LinearPolicy.load(recipe.train.warm_start)
    assert fitted.metadata["recipe"] == "configs/learned-fitted.toml"
    assert (
        type(load_recipe(REPO / "configs" / "learned-fitted.toml").train).__name__ == "FittedConfig"
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("[self_play]\niterations = 2\nspeed = 9\n")
    with pytest.raises(ConfigError, match=r"\[self_play\] has unknown fields \['speed'\]"):
        load_recipe(bad)
    assert recipe.temperature == 0.1  # evaluated as the shipped bot plays
    cold = tmp_path / "cold.toml"
    cold.write_text("[self_play]\n[evaluate]\ntemperature = 0\n")
    with pytest.raises(ConfigError, match="temperature must be a positive number"):
        load_recipe(cold)
    greedy = tmp_path / "greedy.toml"
    greedy.write_text('[self_play]\n[evaluate]\ntemperature = "greedy"\n')
    assert load_recipe(greedy).temperature is None
    warm = tmp_path / "recipes" / "warm.toml"
    warm.parent.mkdir()
    warm.write_text('[self_play]\nwarm_start = "../weights/start.json"\n')
    config = load_recipe(warm).train
    assert isinstance(config, SelfPlayConfig)
    assert Path(config.warm_start) == tmp_path / "recipes" / ".." / "weights" / "start.json"
    both = tmp_path / "both.toml"
    both.write_text("[self_play]\n[train]\n")
    with pytest.raises(ConfigError, match="not both"):
        load_recipe(both)


def test_the_self_play_example_trains_and_scores(capsys: pytest.CaptureFixture[str]) -> None:
    import runpy

    module = runpy.run_path(str(REPO / "examples" / "self_play.py"))
    assert (
        module["main"](
            ["--iterations", "2", "--decisions", "2000", "--tables", "16", "--evaluate-deals", "20"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "iteration 2:" in out and "league:" in out and "heads-up:" in out


def test_train_with_a_self_play_recipe_writes_weights_and_a_card(tmp_path: Path) -> None:
    from dp_arena.cli import main

    LinearPolicy.zeros(feature_set="vector").save(tmp_path / "start.json")
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(
        "[self_play]\niterations = 2\ndecisions = 800\ntables = 8\nlineups = 2\n"
        'six_max = 1\nsnapshot_every = 1\nwarm_start = "start.json"\nstart_in_league = true\n'
        "[evaluate]\ndeals = 10\nsix_max_deals = 6\nseed = 3\n"
    )
    output, card = tmp_path / "weights.json", tmp_path / "card.md"
    assert (
        main(["train", "--config", str(recipe), "--output", str(output), "--card", str(card)]) == 0
    )
    policy = LinearPolicy.load(output)
    assert policy.feature_set == "vector" and policy.metadata["iterations"] == 2
    text = card.read_text()
    assert "self-play" in text and "| learned-2 |" in text and "| tag |" in text
    assert "Started from `start.json`, its weights the first ones, and a member of" in text
    assert "| start |" in text
    # Two iterations, each fit on the last three: every iteration's decisions so far.
    assert "each fit on every iteration's decisions so far" in text
    from dp_arena.learn.recipe import _fits_on

    assert _fits_on(SelfPlayConfig(iterations=9, keep=3, keep_first=1)) == (
        "each fit on the last 3 iterations' decisions and the first 1's"
    )
    assert _fits_on(SelfPlayConfig(iterations=9, keep=3)) == (
        "each fit on the last 3 iterations' decisions"
    )


def test_a_fit_on_sums_of_iterations_is_the_ridge_fit_on_all_their_decisions() -> None:
    from dp_arena.learn.selfplay import _fit, _Sums

    rng = np.random.default_rng(5)
    policy = LinearPolicy.zeros(feature_set="vector")
    actions_count, width = policy.weights.shape
    batches = []
    for _ in range(3):
        rows = rng.normal(size=(900, width))
        actions = rng.integers(actions_count, size=900)
        targets = rng.normal(size=900)
        targets[::7] = np.nan  # deals still in play: left out
        batches.append((rows, actions, targets))
    statistics = []
    for batch in batches:
        sums = _Sums.empty(policy.weights.shape)
        sums.add(*batch)
        statistics.append(sums)
    _fit(policy, statistics, ridge=3.0)
    rows = np.concatenate([batch[0] for batch in batches])
    actions = np.concatenate([batch[1] for batch in batches])
    targets = np.concatenate([batch[2] for batch in batches])
    known = ~np.isnan(targets)
    assert not policy.weights[0].any()  # folding is worth 0
    for action in range(1, actions_count):
        chosen = known & (actions == action)
        x, y = rows[chosen], targets[chosen]
        expected = np.linalg.solve(x.T @ x + 3.0 * np.eye(width), x.T @ y)
        assert np.allclose(policy.weights[action], expected, rtol=1e-9, atol=1e-12)


def test_stratified_self_play_plays_every_member_heads_up_every_iteration() -> None:
    config = SelfPlayConfig(
        iterations=3,
        decisions=4000,
        tables=16,
        lineups=4,
        six_max=1,
        builtins=("tag", "random", "calling-station"),
        stratified=True,
        snapshot_every=1,
        keep=10,
        seed=2,
    )
    reports = []
    train_self_play(config, on_iteration=lambda report, _: reports.append(report))
    for report in reports:
        heads_up = {name for name in report.mean_reward_bb if " " not in name}
        assert heads_up == {"tag", "random", "calling-station"}  # snapshots play six-max
    # Three heads-up slots of 1,000 decisions, split half evenly and half by the league's
    # chances (rounded), and a six-max one of 1,000: tables decide together, so each line-up
    # plays up to a round of tables more.
    assert all(3998 <= report.decisions <= 4000 + 4 * 16 for report in reports)


def test_a_warm_start_plays_its_policys_decisions_first(tmp_path: Path) -> None:
    from dp_arena.learn.features import FEATURE_NAMES

    teacher = LinearPolicy.zeros()  # over the typed observation's features
    teacher.weights[1, FEATURE_NAMES.index("heads_up_bias")] = 1.0  # check or call, always
    teacher.weights[1, FEATURE_NAMES.index("multiway_bias")] = 1.0
    path = tmp_path / "teacher.json"
    teacher.save(path)
    config = SelfPlayConfig(
        iterations=1,
        decisions=1500,
        tables=16,
        lineups=2,
        six_max=1,
        exploration=0.0,
        warm_start=str(path),
        seed=3,
    )
    learner, _ = train_self_play(config)
    # Every decision was the teacher's check or call: only that action's value is fitted.
    assert learner.weights[1].any()
    assert not np.delete(learner.weights, 1, axis=0).any()
    # Weights over the vector features are the learner's first weights.
    vector = LinearPolicy.zeros(feature_set="vector")
    vector.weights[1, 0] = 1.0
    vector_path = tmp_path / "vector.json"
    vector.save(vector_path)
    started, league = train_self_play(
        SelfPlayConfig(
            iterations=1,
            decisions=400,
            tables=8,
            rounds=1,
            lineups=1,
            six_max=0,
            builtins=("random",),
            stratified=True,
            warm_start=str(vector_path),
            start_in_league=True,
            exploration=0.0,
        )
    )
    # It played those weights (check or call, always) against random and the start itself.
    assert started.weights[1].any() and not np.delete(started.weights, 1, axis=0).any()
    assert set(league.members) == {"random", "start"} and league.members["start"].sessions
    with pytest.raises(ConfigError, match="start_in_league needs a warm_start"):
        SelfPlayConfig(start_in_league=True)
    with pytest.raises(ConfigError, match=r"warm_start: .*missing\.json"):
        train_self_play(SelfPlayConfig(warm_start=str(tmp_path / "missing.json")))
    with pytest.raises(ConfigError, match="raise sizes"):
        train_self_play(SelfPlayConfig(warm_start=str(path), raise_sizes=("min", "all-in")))


def test_a_learner_over_the_typed_observations_features_plays_its_snapshots_as_bots() -> None:
    from dp_arena.learn.bot import PolicyBot

    config = SelfPlayConfig(
        iterations=2,
        decisions=1200,
        tables=8,
        lineups=2,
        six_max=1,
        snapshot_every=1,
        features="observation",
        builtins=("tag", "learned"),
        stratified=True,
        seed=6,
    )
    first, league = train_self_play(config)
    second, _ = train_self_play(config)
    assert first.feature_set == "observation" and first.weights.any()
    assert np.array_equal(first.weights, second.weights)
    snapshot = league.members["learned-1"].opponent
    assert isinstance(snapshot, PolicyBot) and snapshot.policy.feature_set == "observation"
    assert not np.array_equal(snapshot.policy.weights, first.weights)  # frozen at iteration 1
    assert league.members["learned"].sessions > 0  # the shipped bot as a league member
    with pytest.raises(ConfigError, match="features must be one of"):
        SelfPlayConfig(features="pixels")


def _warm(tmp_path: Path) -> tuple[str, np.ndarray]:
    """A policy file of weights unlike zeros and any fit (seeded), and its weights."""
    start = LinearPolicy.zeros(feature_set="vector")
    start.weights[1:] = np.random.default_rng(5).normal(0.0, 0.1, start.weights[1:].shape)
    path = tmp_path / "start.json"
    start.save(path)
    return str(path), LinearPolicy.load(path).weights


def test_each_step_moves_the_weights_that_share_of_the_way_to_the_fit(tmp_path: Path) -> None:
    warm, start = _warm(tmp_path)
    base = {**TINY, "warm_start": warm}
    fitted, _ = train_self_play(SelfPlayConfig(iterations=1, **base))
    assert not np.allclose(fitted.weights, start)
    # The first iteration plays the same decisions whatever the step: its fit is the same.
    for step in (0.25, 0.5):
        moved, _ = train_self_play(SelfPlayConfig(iterations=1, step=step, **base))
        assert np.allclose(moved.weights, start + step * (fitted.weights - start), atol=1e-12)
    frozen, _ = train_self_play(SelfPlayConfig(iterations=3, step=0, **base))
    assert np.array_equal(frozen.weights, start)  # step 0 never moves
    default, _ = train_self_play(SelfPlayConfig(iterations=2, **base))
    plain, _ = train_self_play(SelfPlayConfig(iterations=2, step=1.0, **base))
    assert np.array_equal(default.weights, plain.weights)  # step 1: the fit itself
    for bad in (-0.1, 1.5, True, "half"):
        with pytest.raises(ConfigError, match="step must be"):
            SelfPlayConfig(step=bad)  # type: ignore[arg-type]


def test_the_first_iterations_decisions_stay_in_every_fit_with_keep_first() -> None:
    base = {**TINY, "seed": 3}
    # Two iterations: the first kept by keep_first, the second by keep, is a fit on both.
    anchored, _ = train_self_play(SelfPlayConfig(iterations=2, keep=1, keep_first=1, **base))
    both, _ = train_self_play(SelfPlayConfig(iterations=2, keep=2, **base))
    last, _ = train_self_play(SelfPlayConfig(iterations=2, keep=1, **base))
    assert np.array_equal(anchored.weights, both.weights)
    assert not np.allclose(anchored.weights, last.weights)
    # Every iteration kept by keep_first is a fit on all of them, as with a long keep.
    every, _ = train_self_play(SelfPlayConfig(iterations=3, keep=1, keep_first=3, **base))
    whole, _ = train_self_play(SelfPlayConfig(iterations=3, keep=3, **base))
    assert np.array_equal(every.weights, whole.weights)
    with pytest.raises(ConfigError, match="keep_first must be an integer"):
        SelfPlayConfig(keep_first=-1)


def test_the_softmax_behaviour_draws_each_legal_action_in_proportion_to_its_value() -> None:
    from dp_arena.learn.selfplay import _choose

    logits = np.tile([5.0, 0.0, 0.5, 1.0, 9.0], (40_000, 1))
    masks = np.tile([False, True, True, True, False], (40_000, 1))
    rng = np.random.default_rng(0)
    chosen, _ = _choose(logits, masks, rng, exploration=0.0, temperature=0.5)
    shares = np.bincount(chosen, minlength=5) / len(chosen)
    expected = np.exp(np.array([0.0, 0.5, 1.0]) / 0.5)
    expected /= expected.sum()  # 0.090, 0.245, 0.665 over the three legal actions
    assert shares[[0, 4]].tolist() == [0.0, 0.0]  # masked actions never
    assert np.allclose(shares[1:4], expected, atol=0.01)
    greedy, none = _choose(logits, masks, rng, exploration=0.0, temperature=0.0)
    assert (greedy == 3).all() and not none.any()  # the best legal action, not the masked 9
    explored, every = _choose(logits, masks, rng, exploration=1.0, temperature=0.0)
    assert every.all()
    assert np.allclose(np.bincount(explored, minlength=5)[1:4] / len(explored), 1 / 3, atol=0.01)
    for bad in (-1.0, float("inf"), True):
        with pytest.raises(ConfigError, match="behaviour_temperature"):
            SelfPlayConfig(behaviour_temperature=bad)
        with pytest.raises(ConfigError, match="select_temperature"):
            SelfPlayConfig(select_temperature=bad)


def test_select_deals_returns_the_snapshot_whose_worst_score_is_the_highest() -> None:
    from dp_arena.learn import PolicyBot, duplicate_score

    builtins = ("random", "calling-station")
    config = SelfPlayConfig(
        iterations=3,
        snapshot_every=1,
        builtins=builtins,
        select_deals=24,
        select_temperature=0,  # greedy, as replayed below
        seed=6,
        **TINY,
    )
    weights: dict[str, np.ndarray] = {}
    chosen, _ = train_self_play(
        config,
        on_iteration=lambda report, policy: weights.update(
            {f"learned-{report.iteration + 1}": policy.weights.copy()}
        ),
    )
    worst = {}
    for name, candidate in weights.items():
        policy = LinearPolicy(candidate, config.raise_sizes, feature_set="vector")
        worst[name] = min(
            duplicate_score(
                lambda policy=policy: PolicyBot(policy),
                member,
                deals=24,
                seed=6 * 1_000_003 + 977_269,
            ).mean
            for member in builtins
        )
    assert len(set(worst.values())) > 1  # the choice is not a tie
    best = max(worst, key=worst.__getitem__)
    assert chosen.metadata["selected"] == best
    assert np.array_equal(chosen.weights, weights[best])
    selection = chosen.metadata["selection"]
    assert {name: min(scores.values()) for name, scores in selection.items()} == pytest.approx(
        worst
    )
    last, _ = train_self_play(dataclasses.replace(config, select_deals=0))
    assert np.array_equal(last.weights, weights["learned-3"])  # no selection: the last


def test_fit_on_exploring_fits_each_action_on_the_decisions_drawn_at_random_alone() -> None:
    from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
    from dp_arena.learn.selfplay import _collect

    def collect(config: SelfPlayConfig) -> tuple[np.ndarray, np.ndarray]:
        league = League()
        league.add("tag")
        policy = LinearPolicy.zeros(feature_set="vector")
        policy.weights[1:] = np.random.default_rng(1).normal(0, 0.1, policy.weights[1:].shape)
        env = SingleAgentVectorEnv(
            num_envs=16,
            opponents=["tag"],
            deals=4,
            observation_format="flat",
            autoreset_mode="SameStep",
        )
        _, actions, targets, _, _ = _collect(
            env,
            11,
            policy,
            np.random.default_rng(2),
            config,
            2000,
            [league.members["tag"]],
            league,
        )
        env.close()
        return actions, targets

    every, targets = collect(SelfPlayConfig(exploration=0.3))
    drawn, same_targets = collect(SelfPlayConfig(exploration=0.3, fit_on="exploring"))
    # The same decisions played; the ones not drawn at random carry no action to fit.
    assert np.array_equal(targets, same_targets, equal_nan=True)
    kept = drawn >= 0
    assert np.array_equal(drawn[kept], every[kept]) and (drawn[~kept] == -1).all()
    assert 0.25 < kept.mean() < 0.35  # the exploration's share
    # Everything drawn at random: the same fit as on every decision.
    base = {**TINY, "iterations": 2}
    first, _ = train_self_play(SelfPlayConfig(exploration=1.0, fit_on="exploring", **base))
    second, _ = train_self_play(SelfPlayConfig(exploration=1.0, **base))
    assert np.array_equal(first.weights, second.weights)
    with pytest.raises(ConfigError, match="fit_on"):
        SelfPlayConfig(fit_on="greedy")
    with pytest.raises(ConfigError, match="needs an exploration"):
        SelfPlayConfig(fit_on="exploring", exploration=0.0)
