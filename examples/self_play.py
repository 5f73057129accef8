"""Self-play at vector speed, with NumPy alone: a learner trained against a league of the
built-in bots and its own frozen snapshots, every opponent (the snapshots included)
deciding inside the vector environment's batch, one call per step for all its tables.

    python examples/self_play.py --iterations 12 --decisions 40000

Each iteration draws line-ups from the league by prioritised fictitious self-play (an
opponent the learner beats less often is drawn more often), plays them at the tables of
``SingleAgentVectorEnv`` and refits the learner (:mod:`dp_arena.learn.selfplay`); every
few iterations a frozen copy of the learner joins the league. At the end it prints the
league (each member's sessions, the learner's win rate against it and its chance to be
drawn) and scores the learner in heads-up duplicate matches against the built-in bots.

The pieces, for a learner of your own (a PyTorch policy, say)::

    from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
    from dp_arena.learn import League

    league = League(weighting="hard", seed=0)
    league.add("tag")
    league.add_snapshot(my_policy)            # a frozen copy: policy(observations, masks)
    member = league.sample()[0]
    envs = SingleAgentVectorEnv(num_envs=256, opponents=[member.opponent],
                                observation_format="flat")
    ...                                         # collect, update my_policy
    league.record(member.name, [1.0, 0.0, 0.5])  # sessions won, lost, drawn

A snapshot is any callable ``policy(observations, masks) -> actions`` over the
environment's observation vectors (keep it free of state between calls, and give NumPy
one BLAS thread on a small machine: ``OPENBLAS_NUM_THREADS=1``).
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=12)
    parser.add_argument(
        "--decisions", type=int, default=40_000, help="learner decisions an iteration"
    )
    parser.add_argument("--tables", type=int, default=128, help="vector-env tables per line-up")
    parser.add_argument("--evaluate-deals", type=int, default=300, help="0 to skip")
    parser.add_argument("--output", help="write the trained policy (JSON) here")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)

    from dp_arena.learn import PolicyBot, duplicate_score
    from dp_arena.learn.selfplay import SelfPlayConfig, train_self_play

    config = SelfPlayConfig(
        iterations=arguments.iterations,
        decisions=arguments.decisions,
        tables=arguments.tables,
        seed=arguments.seed,
    )

    def report(iteration, policy):  # type: ignore[no-untyped-def]
        rewards = ", ".join(
            f"{name}: {value:+.2f}" for name, value in iteration.mean_reward_bb.items()
        )
        print(
            f"iteration {iteration.iteration + 1}: {iteration.decisions:,} decisions"
            f" in {iteration.seconds:.1f} s; bb/deal {rewards}",
            flush=True,
        )

    policy, league = train_self_play(config, on_iteration=report)
    print("\nleague: member, sessions, the learner's win rate, chance to be drawn")
    for name, sessions, rate, chance in league.table():
        print(f"  {name:<16} {sessions:>8,.0f} {rate:6.2f} {chance:6.2f}")
    if arguments.output:
        policy.save(arguments.output)
        print(f"\npolicy written to {arguments.output}")
    if arguments.evaluate_deals:
        print()
        for opponent in ("tag", "aggressive", "calling-station", "random"):
            score = duplicate_score(
                lambda: PolicyBot(policy),
                opponent,
                deals=arguments.evaluate_deals,
                seed=arguments.seed + 99,
            )
            print(f"heads-up: {score}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
