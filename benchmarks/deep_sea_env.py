"""Environment steps per second: our vmapped JAX Deep Sea against bsuite's numpy DeepSea in a Python loop.

Both step the same size with pre-drawn uniform random actions (auto-reset included). Ours runs `lax.scan` over
`--steps` steps for a batch of environments, jitted once (compile time reported separately, not timed), best of
`--repeats`. Ratios are against bsuite measured in this same run.

    python benchmarks/deep_sea_env.py [--size 10] [--steps 1000] [--repeats 5]
"""

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from bsuite.environments.deep_sea import DeepSea as BsuiteDeepSea

from uncertain_rl.envs.deep_sea import DeepSea


def bsuite_steps_per_second(size: int, n_steps: int) -> float:
    env = BsuiteDeepSea(size, mapping_seed=0, seed=0)
    actions = np.random.default_rng(0).integers(0, 2, n_steps).tolist()
    env.reset()
    start = time.perf_counter()
    for a in actions:
        env.step(a)  # bsuite resets by itself after the last step (that call counts as a step here too)
    return n_steps / (time.perf_counter() - start)


def make_batched_run(env: DeepSea, batch: int, n_steps: int):
    params = env.default_params

    def run(key, actions):  # actions: [n_steps, batch]
        keys = jax.random.split(key, batch)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def step(state, xs):
            key, action = xs
            obs, state, reward, *_ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(key, batch), state, action, params
            )
            return state, reward.sum() + obs[:, 0, 0].sum()  # keep outputs alive

        state, out = jax.lax.scan(step, state, (jax.random.split(key, n_steps), actions))
        return state.total_bad_episodes.sum() + out.sum()

    return jax.jit(run)


def ours_steps_per_second(size: int, batch: int, n_steps: int, repeats: int) -> tuple[float, float]:
    env = DeepSea(size, mapping_seed=0)
    run = make_batched_run(env, batch, n_steps)
    key = jax.random.PRNGKey(0)
    actions = jax.random.bernoulli(key, 0.5, (n_steps, batch)).astype(jnp.int32)
    start = time.perf_counter()
    run(key, actions).block_until_ready()
    compile_s = time.perf_counter() - start
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run(key, actions).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return batch * n_steps / best, compile_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--size', type=int, default=10)
    ap.add_argument('--steps', type=int, default=10000, help='steps per environment in the timed scan')
    ap.add_argument('--repeats', type=int, default=5)
    args = ap.parse_args()

    print(
        f"Deep Sea N={args.size} on {jax.devices()[0].platform} ({jax.device_count()} device(s)), jax {jax.__version__}"
    )
    ref = max(bsuite_steps_per_second(args.size, 100_000) for _ in range(3))
    print(f"{'implementation':<32}{'steps/s':>14}{'vs bsuite':>12}{'compile s':>12}")
    print(f"{'bsuite DeepSea, python loop':<32}{ref:>14,.0f}{1.0:>11.2f}x{'-':>12}")
    for batch in (1, 64, 4096):
        sps, compile_s = ours_steps_per_second(args.size, batch, args.steps, args.repeats)
        print(f"{f'ours, vmapped batch {batch}':<32}{sps:>14,.0f}{sps / ref:>11.2f}x{compile_s:>12.2f}")


if __name__ == '__main__':
    main()
