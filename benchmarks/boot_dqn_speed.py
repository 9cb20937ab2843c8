"""Bootstrapped DQN on Deep Sea 10: our compiled agent against bsuite's own `bsuite.baselines.jax.boot_dqn`.

Identical hyperparameters (bsuite's `default_agent`: K=20, MLP [50, 50], prior scale 5, Adam 1e-3, batch 128,
discount 0.99, replay 10,000, min replay 128, one SGD step per environment step, target period 4, mask prob 1).
bsuite is timed over `--bsuite-episodes` episodes after a warm-up that compiles and fills replay; ours over
`--episodes` episodes per seed, compiled ahead of time (compile time reported separately). All in one run.

    pip install -e ".[dev,benchmark]"      # bsuite's agent needs dm-haiku and rlax
    python benchmarks/boot_dqn_speed.py [--episodes 200] [--bsuite-episodes 40]
"""
import argparse
import time
from dataclasses import replace

import jax

from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import TrainConfig, train
from uncertain_rl.base import gymnax_spec

SIZE = 10


def bsuite_episodes_per_second(episodes: int, warmup: int = 20) -> float:
    from bsuite.baselines.jax import boot_dqn
    from bsuite.environments.deep_sea import DeepSea as BsuiteDeepSea
    env = BsuiteDeepSea(SIZE, mapping_seed=42, seed=0)
    agent = boot_dqn.default_agent(env.observation_spec(), env.action_spec(), seed=0)

    def episode():
        ts = env.reset()
        while not ts.last():
            action = agent.select_action(ts)
            new_ts = env.step(action)
            agent.update(ts, action, new_ts)
            ts = new_ts
    for _ in range(warmup): episode()
    start = time.perf_counter()
    for _ in range(episodes): episode()
    return episodes / (time.perf_counter() - start)


def compiled_rate(run, seeds: int, units: int) -> tuple[float, float]:
    "(`units` per run x `seeds` per second, compile seconds) of a training run compiled ahead of time, seeds vmapped."
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    start = time.perf_counter()
    compiled = jax.jit(jax.vmap(run.run)).lower(keys).compile()
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    jax.block_until_ready(compiled(keys))
    return seeds * units / (time.perf_counter() - start), compile_s


def ours(config, seeds: int, episodes: int, make=make_boot_dqn) -> tuple[float, float]:
    "(seed-episodes per second, compile seconds) of `make(config, spec)` on Deep Sea 10, `seeds` vmapped seeds."
    env = DeepSea(SIZE, mapping_seed=42)
    return compiled_rate(train(TrainConfig(env, make(config, gymnax_spec(env)), SIZE * episodes, episodes)), seeds,
                         episodes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=200)
    ap.add_argument('--bsuite-episodes', type=int, default=40)
    args = ap.parse_args()
    print(f"Deep Sea {SIZE}, Bootstrapped DQN (K=20) on {jax.devices()[0].platform}, jax {jax.__version__}")
    ref = bsuite_episodes_per_second(args.bsuite_episodes)
    print(f"{'agent':<46}{'episodes/s':>12}{'vs bsuite':>11}{'compile s':>11}")
    print(f"{'bsuite boot_dqn (haiku, per-member SGD)':<46}{ref:>12.1f}{1:>10.2f}x{'-':>11}")
    plain = replace(BootDQNConfig(), row_lookup=False, cache_priors=False)
    for name, cfg in (('ours, plain fused ensemble, 1 seed', plain),
                      ('ours, + row lookup, 1 seed', replace(plain, row_lookup=True)),
                      ('ours, + row lookup + cached priors, 1 seed', BootDQNConfig())):
        eps, c = ours(cfg, 1, args.episodes)
        print(f"{name:<46}{eps:>12.1f}{eps / ref:>10.2f}x{c:>11.1f}")
    one = None
    for seeds in (1, 2, 4, 8):
        eps, c = ours(BootDQNConfig(), seeds, args.episodes)
        one = one or eps
        print(f"{f'ours (default), {seeds} vmapped seeds, aggregate':<46}{eps:>12.1f}{eps / ref:>10.2f}x{c:>11.1f}"
              f"   ({eps / one:.2f}x one seed)")


if __name__ == '__main__':
    main()
