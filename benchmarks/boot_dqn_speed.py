"""Bootstrapped DQN on Deep Sea 10: our compiled agent against bsuite's own `bsuite.baselines.jax.boot_dqn`.

Identical hyperparameters (bsuite's `default_agent`: K=20, MLP [50, 50], prior scale 5, Adam 1e-3, batch 128,
discount 0.99, replay 10,000, min replay 128, one SGD step per environment step, target period 4, mask prob 1).
bsuite is timed over `--bsuite-episodes` episodes after a warm-up that compiles and fills replay; ours over
`--episodes` episodes per seed through `experiments.run`, the whole training one compiled chunk on one device (no
evaluations or snapshots): `RunResult.run_seconds`, with `compile_seconds` reported separately. All in one run.

    pip install -e ".[dev,benchmark]"      # bsuite's agent needs dm-haiku and rlax
    python benchmarks/boot_dqn_speed.py [--episodes 200] [--bsuite-episodes 40]
"""

import argparse
import time
from dataclasses import replace

import jax

from uncertain_rl.agents.boot_dqn import BootDQNConfig
from uncertain_rl.experiments import Experiment, run, split_keys

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

    for _ in range(warmup):
        episode()
    start = time.perf_counter()
    for _ in range(episodes):
        episode()
    return episodes / (time.perf_counter() - start)


def compiled_rate(agent, env: str, seeds: int, units: int, **spec) -> tuple[float, float]:
    """(`units` per run x `seeds` per second of run time, compile seconds) of `agent` (a registered name or a config)
    on `env` through `experiments.run`: `seeds` vmapped seeds on one device (keys `split(PRNGKey(0), seeds)`), the
    whole training one compiled chunk, no evaluations or snapshots. `spec`: the budget (`episodes=` or `steps=`) and
    any other `Experiment` field."""
    res = run(
        Experiment(
            agent, env, seeds=seeds, keys=split_keys(seeds), eval_every=0, snapshots=0, num_chunks=1, devices=1, **spec
        )
    )
    return seeds * units / res.run_seconds, res.compile_seconds


def ours(config, seeds: int, episodes: int) -> tuple[float, float]:
    "(seed-episodes per second, compile seconds) of the agent of `config` on Deep Sea 10, `seeds` vmapped seeds."
    return compiled_rate(config, 'deep_sea', seeds, episodes, episodes=episodes, size=SIZE)


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
    for name, cfg in (
        ('ours, plain fused ensemble, 1 seed', plain),
        ('ours, + row lookup, 1 seed', replace(plain, row_lookup=True)),
        ('ours, + row lookup + cached priors, 1 seed', BootDQNConfig()),
    ):
        eps, c = ours(cfg, 1, args.episodes)
        print(f"{name:<46}{eps:>12.1f}{eps / ref:>10.2f}x{c:>11.1f}")
    one = None
    for seeds in (1, 2, 4, 8):
        eps, c = ours(BootDQNConfig(), seeds, args.episodes)
        one = one or eps
        print(
            f"{f'ours (default), {seeds} vmapped seeds, aggregate':<46}{eps:>12.1f}{eps / ref:>10.2f}x{c:>11.1f}"
            f"   ({eps / one:.2f}x one seed)"
        )


if __name__ == '__main__':
    main()
