"""Train PPO on capped hold'em with Ray RLlib (new API stack) through its PettingZoo wrapper.

Every seat is played by one shared policy (self-play) whose network only ever picks
legal actions: RLlib's action-masking module reads the mask our environment provides.
Needs the ``rl`` extra (PyTorch, CPU build, and ``ray[rllib]``)::

    pip install torch==2.13.0 "ray[rllib]"
    python examples/rllib_train.py --iterations 3

Prints one line per training iteration and the mean episode return of ``player_0``.
``--export policy.json`` then writes the trained policy network as plain arrays (checked
against RLlib's own forward pass on sample observations), which the bot of
``examples/rllib_bot.py`` plays with NumPy alone, so that a duplicate match scores it::

    python examples/rllib_train.py --iterations 20 --export rllib_policy.json
    RLLIB_POLICY=rllib_policy.json dp-arena match examples/rllib_bot.py:RLlibBot random --trusted
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def build_config(*, num_players: int, deals: int, batch: int, seed: int):  # type: ignore[no-untyped-def]
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    from dp_arena.envs.aec.rllib import rllib_env

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


def export_policy(module, num_players: int, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Write the actor's layers (the encoder's, then the policy head's) as arrays, after
    checking that they give RLlib's own action logits on random observations."""
    import numpy as np
    import torch
    from ray.rllib.core.columns import Columns

    from dp_arena.envs.encoding import observation_bounds

    encoder = module.encoder
    parts = [getattr(encoder, "actor_encoder", None) or encoder.encoder, module.pi]
    layers: list[dict[str, object]] = []
    activations = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu", torch.nn.SiLU: "silu"}
    for part in parts:
        for layer in part.modules():
            if isinstance(layer, torch.nn.Linear):
                layers.append(
                    {
                        "weight": layer.weight.detach().numpy().tolist(),
                        "bias": layer.bias.detach().numpy().tolist(),
                    }
                )
            elif type(layer) in activations:
                layers.append({"activation": activations[type(layer)]})
    exported = {"format": "dp-arena/rllib-mlp/v1", "num_players": num_players, "layers": layers}
    low, high = observation_bounds(num_players)
    rng = np.random.default_rng(0)
    samples = rng.uniform(low, high, size=(32, len(low))).astype(np.float32)
    masks = np.ones((32, module.action_space.n), dtype=np.float32)
    with torch.no_grad():
        batch = {"observations": torch.from_numpy(samples), "action_mask": torch.from_numpy(masks)}
        out = module.forward_inference({Columns.OBS: batch})
    expected = out[Columns.ACTION_DIST_INPUTS].numpy()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from rllib_bot import mlp_logits

    got = mlp_logits(exported["layers"], samples)
    if not np.allclose(got, expected, atol=1e-4):
        raise RuntimeError("the exported layers do not reproduce RLlib's logits")
    path.write_text(json.dumps(exported) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument(
        "--deals", type=int, default=4, help="deals per episode, a multiple of the players"
    )
    parser.add_argument("--batch", type=int, default=512, help="env steps per training iteration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--export", type=Path, help="write the trained policy to this file")
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
        if args.export:
            export_policy(algorithm.get_module("shared"), args.num_players, args.export)
            print(f"policy written to {args.export}", flush=True)
        algorithm.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
