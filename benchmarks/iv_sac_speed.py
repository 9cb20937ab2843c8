"""IV-SAC against ensemble SAC on Pendulum: time per environment step, in one run, alternating.

Both agents are the registry's `pendulum` configs (N = 5, 2 x 64, batch 256, one gradient step per environment step,
UCB acting); IV-SAC differs only by its presets (BIV weights of the critics and the actors from the var-ensemble's
cross-member mixture variance, loss attenuation). Each agent's training loop (`loops.train`, no evaluations) first
runs `min_replay_size` steps so that every timed step learns; then a compiled chunk of `--steps` steps is compiled
once (its first call, excluded) and timed `--rounds` times, IV-SAC and ensemble SAC alternately (A B A B ...), each
call from the same starting carry. Prints the median seconds per step of each, and the ratio of the medians (the
IV-RL paper reports about 1.2 for its SAC on a GPU).

    python benchmarks/iv_sac_speed.py [--steps 200] [--rounds 5] [--seeds 1]
"""

import argparse
import time

import jax
import numpy as np

from uncertain_rl.base import gymnax_spec
from uncertain_rl.loops import TrainConfig, train
from uncertain_rl.registry import agent_config, make_agent, make_env

AGENTS = ('ensemble_sac', 'iv_sac')


def timed_chunk(agent_name: str, env_name: str, seeds: int, steps: int, **overrides):
    "`(chunk, carry)`: a compiled `steps`-step chunk of `agent_name`'s training and a carry past its warm-up."
    env = make_env(env_name, 1)
    config = agent_config(agent_name, env_name, **overrides)
    run = train(
        TrainConfig(
            env, make_agent(agent_name, config, gymnax_spec(env)), num_steps=10**6, max_episodes=10**4, eval_every=0
        )
    )
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    carry = jax.jit(jax.vmap(run.init))(keys)
    carry = jax.jit(jax.vmap(lambda c: run.advance(c, config.min_replay_size)))(carry)
    chunk = jax.jit(jax.vmap(lambda c: run.advance(c, steps)))
    jax.block_until_ready(chunk(carry))  # compile (and one run), not timed
    return chunk, carry


def seconds(chunk, carry) -> float:
    start = time.perf_counter()
    jax.block_until_ready(chunk(carry))
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--env', default='pendulum')
    ap.add_argument('--steps', type=int, default=200, help='environment steps per timed chunk')
    ap.add_argument('--rounds', type=int, default=5, help='alternations (each agent timed this many times)')
    ap.add_argument('--seeds', type=int, default=1, help='vmapped seeds per chunk')
    args = ap.parse_args()
    print(
        f"{args.env}, {args.seeds} seed(s), {args.steps} steps per chunk, {args.rounds} alternations, "
        f"{jax.devices()[0].platform}, jax {jax.__version__}",
        flush=True,
    )
    chunks = {name: timed_chunk(name, args.env, args.seeds, args.steps) for name in AGENTS}
    times = {name: [] for name in AGENTS}
    for _ in range(args.rounds):
        for name in AGENTS:
            times[name].append(seconds(*chunks[name]) / args.steps)
    med = {name: float(np.median(t)) for name, t in times.items()}
    for name in AGENTS:
        print(
            f"{name:<14} median {1e3 * med[name]:7.2f} ms/step   "
            f"(all: {', '.join(f'{1e3 * t:.2f}' for t in times[name])})"
        )
    print(f"iv_sac / ensemble_sac time per step: {med['iv_sac'] / med['ensemble_sac']:.2f}x")


if __name__ == '__main__':
    main()
