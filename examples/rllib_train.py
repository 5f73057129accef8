"""Train PPO on capped hold'em with Ray RLlib (new API stack) through its PettingZoo wrapper.

Every seat is played by one shared policy (self-play) whose network only ever picks
legal actions: RLlib's action-masking module reads the mask our environment provides.
Needs the ``rl`` extra (PyTorch, CPU build, and ``ray[rllib]``)::

    pip install torch==2.13.0 "ray[rllib]"
    python examples/rllib_train.py --iterations 3

Prints one line per training iteration and the mean episode return of ``player_0``.
"""

from __future__ import annotations

import argparse
import os
import sys


def build_config(*, num_players: int, deals: int, batch: int, seed: int):  # type: ignore[no-untyped-def]
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    from dp_arena.envs.rllib import rllib_env

    register_env("dp_arena_capped_holdem", rllib_env)
    return (
        PPOConfig()
        .environment(
            "dp_arena_capped_holdem", env_config={"num_players": num_players, "deals": deals}
        )
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [64, 64]},
                    )
                }
            )
        )
        # Sampling in the driver process keeps the example small; raise it to use more cores.
        .env_runners(num_env_runners=0)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(128, batch),
            num_epochs=2,
            lr=3e-4,
        )
        .debugging(seed=seed)
    )


def _missing_rl_extra() -> str | None:
    """A hint naming what to install when RLlib or PyTorch cannot be imported (RLlib's
    own error is ``No module named 'tree'``: dm-tree comes with ``ray[rllib]``, not ``ray``)."""
    for module in ("ray.rllib", "torch"):
        try:
            __import__(module)
        except ImportError as error:
            return (
                f"this example needs the rl extra: importing {module} failed ({error}).\n"
                "Install it with: pip install torch==2.13.0 -e '.[rl]'   (or run: make test-rl)"
            )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument(
        "--deals", type=int, default=4, help="deals per episode, a multiple of the players"
    )
    parser.add_argument("--batch", type=int, default=512, help="env steps per training iteration")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    missing = _missing_rl_extra()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    import ray

    # A private local instance: never join (or hang on) a cluster already on the machine.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algorithm = build_config(
            num_players=args.num_players, deals=args.deals, batch=args.batch, seed=args.seed
        ).build_algo()
        for iteration in range(1, args.iterations + 1):
            result = algorithm.train()
            runners = result.get("env_runners", {})
            steps = runners.get("num_env_steps_sampled_lifetime", 0)
            returns = runners.get("agent_episode_returns_mean", {})
            episodes = runners.get("num_episodes_lifetime", 0)
            print(
                f"iteration {iteration}: {int(steps)} env steps, {int(episodes)} episodes,"
                f" player_0 mean return {returns.get('player_0', float('nan')):+.2f} bb",
                flush=True,
            )
        algorithm.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
