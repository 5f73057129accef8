"""Train sb3-contrib's MaskablePPO on capped hold'em, the environment as it is: Gymnasium's
single-agent env in Stable-Baselines3's ``SubprocVecEnv`` worker processes, the masks read
through the env's ``action_masks()`` method (what MaskablePPO calls), no wrapper.

Needs the ``rl`` extra (PyTorch, CPU build, Stable-Baselines3 and sb3-contrib)::

    pip install torch==2.13.0 -e '.[rl]'
    python examples/maskable_ppo.py --timesteps 50000 --opponent tag

Prints the training's progress, then the trained policy's mean reward per deal, in big
blinds, over ``--eval-sessions`` fresh sessions against the same opponent, masked play
only (a masked action would raise ``IllegalActionError``; plain PPO, which samples masked
actions, needs ``illegal_action="fallback"`` instead: see docs/envs.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def make_env(opponent: str, deals: int) -> Any:
    """A factory for ``SubprocVecEnv``: each worker builds its own environment."""

    def build() -> Any:
        import gymnasium

        import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)

        return gymnasium.make(
            "dp_arena/CappedHoldem-v0",
            opponents=[opponent],
            deals=deals,
            observation_format="flat",
        )

    return build


def _missing_rl_extra() -> str | None:
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        try:
            __import__(module)
        except ImportError as error:
            return (
                f"this example needs the rl extra: importing {module} failed ({error}).\n"
                "Install it with: pip install torch==2.13.0 -e '.[rl]'   (or run: make test-rl)"
            )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000, help="learner decisions")
    parser.add_argument("--opponent", default="random", help="the opponent's agent spec")
    parser.add_argument("--workers", type=int, default=2, help="SubprocVecEnv processes")
    parser.add_argument("--deals", type=int, default=10, help="deals per session (episode)")
    parser.add_argument("--eval-sessions", type=int, default=50, help="sessions to score")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    missing = _missing_rl_extra()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    import numpy as np
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    envs = SubprocVecEnv(
        [make_env(arguments.opponent, arguments.deals) for _ in range(arguments.workers)]
    )
    try:
        model = MaskablePPO(
            "MlpPolicy",
            envs,
            n_steps=max(64, min(1024, arguments.timesteps // arguments.workers)),
            batch_size=64,
            seed=arguments.seed,
            verbose=0,
        )
        model.learn(total_timesteps=arguments.timesteps)
    finally:
        envs.close()
    print(f"trained {arguments.timesteps:,} timesteps against {arguments.opponent}")

    env = make_env(arguments.opponent, arguments.deals)()
    total = 0.0
    for session in range(arguments.eval_sessions):
        observation, _ = env.reset(seed=10_000 + session)
        while True:
            action, _ = model.predict(
                observation, action_masks=env.unwrapped.action_masks(), deterministic=True
            )
            observation, reward, terminated, _, _ = env.step(int(action))
            total += float(reward)
            if terminated:
                break
    per_deal = total / (arguments.eval_sessions * arguments.deals)
    print(
        f"mean reward against {arguments.opponent}: {per_deal:+.3f} big blinds per deal"
        f" ({arguments.eval_sessions} sessions of {arguments.deals} deals)"
    )
    env.close()
    return 0 if np.isfinite(per_deal) else 1


if __name__ == "__main__":
    sys.exit(main())
