"""bsuite's settings run whole, through bsuite's own DQN and Python environment and through ours compiled, side by side.

For each bsuite id: bsuite's `bsuite.baselines.jax.dqn.default_agent` on `bsuite.load(...)` (Haiku, its update jitted,
one Python step at a time), against our DQN (the registry's config, `uncertain_rl.registry.preset_config('dqn',
'bsuite:ID')`) on `uncertain_rl.envs.bsuite.make(ID)`, one compiled `loops.train` scan stopping at the episode budget.
Both sides are timed whole, in this process after the imports: building the environment and the agent, compiling,
and running `--episodes` episodes; ours also with `--seeds` seeds vmapped in the same call (the time per seed). Ours
reports its compile time beside. One row per setting, ratios bsuite / ours, the CPU kind printed.

    pip install -e ".[dev,benchmark]"     # bsuite's agent needs dm-haiku and rlax
    python benchmarks/bsuite_speed.py [--episodes 100] [--seeds 8] [--ids catch/0 bandit/0 ...] [--out DIR]

MNIST ids need the digits in the user's cache (`uncertain_rl.envs.mnist.fetch_mnist()`); without them they are
skipped and the table says so.
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import jax
import numpy as np

IDS = (
    'bandit/0',
    'catch/0',
    'cartpole/0',
    'cartpole_swingup/0',
    'mountain_car/0',
    'discounting_chain/0',
    'memory_len/5',
    'umbrella_length/5',
    'deep_sea/5',
    'mnist/0',
)


def cpu_kind() -> str:
    "The CPU model from /proc/cpuinfo (ratios move between CPU kinds)."
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


def bsuite_seconds(bsuite_id: str, episodes: int, seed: int = 0) -> float:
    "Wall seconds of bsuite's DQN on bsuite's environment for `episodes` episodes, building both included."
    import bsuite
    from bsuite import sweep
    from bsuite.baselines.jax import dqn

    start = time.perf_counter()
    env = bsuite.load(bsuite_id.split('/')[0], sweep.SETTINGS[bsuite_id])
    agent = dqn.default_agent(env.observation_spec(), env.action_spec(), seed=seed)
    for _ in range(episodes):
        ts = env.reset()
        while not ts.last():
            action = agent.select_action(ts)
            new_ts = env.step(action)
            agent.update(ts, action, new_ts)
            ts = new_ts
    return time.perf_counter() - start


def our_seconds(bsuite_id: str, episodes: int, seeds: int) -> tuple:
    "(wall seconds, compile seconds) of our DQN on the compiled setting, `seeds` vmapped seeds, building included."
    from uncertain_rl import registry
    from uncertain_rl.base import gymnax_spec
    from uncertain_rl.envs.bsuite import make
    from uncertain_rl.loops import TrainConfig, episode_bounds, train

    start = time.perf_counter()
    env, params = make(bsuite_id)
    config = registry.preset_config('dqn', f'bsuite:{bsuite_id}')
    agent = registry.agent_entry('dqn').make(config, gymnax_spec(env, params))
    longest = episode_bounds(env, params)[1]
    tc = TrainConfig(
        env, agent, num_steps=episodes * longest, max_episodes=episodes, env_params=params, stop_at_max_episodes=True
    )
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    run = jax.jit(jax.vmap(train(tc).run))
    compile_start = time.perf_counter()
    compiled = run.lower(keys).compile()
    compile_seconds = time.perf_counter() - compile_start
    _, logs = compiled(keys)
    played = np.asarray(logs['episode_length'])
    if not (played > 0).all():
        raise RuntimeError(f'{bsuite_id}: not every run played its {episodes} episodes')
    return time.perf_counter() - start, compile_seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=100)
    ap.add_argument('--seeds', type=int, default=8)
    ap.add_argument('--ids', nargs='+', default=list(IDS))
    ap.add_argument('--out', type=Path, default=None, help='write the table as results.json into this folder')
    args = ap.parse_args()
    from uncertain_rl.envs.mnist import MNIST_FILES, mnist_cache_dir

    have_mnist = all(os.path.isfile(os.path.join(mnist_cache_dir(), f)) for f in MNIST_FILES)
    print(f'CPU: {cpu_kind()}, {os.cpu_count()} cores; jax {jax.__version__}; {args.episodes} episodes a run')
    head = f"{'bsuite id':<22}{'bsuite s':>10}{'ours 1 seed s':>15}{'(compile)':>11}{'ratio':>8}"
    print(head + f"{f'ours {args.seeds} seeds s':>17}{'per-seed ratio':>16}")
    rows = []
    for bsuite_id in args.ids:
        if bsuite_id.startswith('mnist') and not have_mnist:
            print(f'{bsuite_id:<22}skipped: MNIST is not in {mnist_cache_dir()} (fetch_mnist())')
            continue
        theirs = bsuite_seconds(bsuite_id, args.episodes)
        one, one_compile = our_seconds(bsuite_id, args.episodes, 1)
        many, many_compile = our_seconds(bsuite_id, args.episodes, args.seeds)
        row = dict(
            bsuite_id=bsuite_id,
            bsuite_seconds=theirs,
            ours_seconds=one,
            ours_compile_seconds=one_compile,
            ratio=theirs / one,
            ours_seeds=args.seeds,
            ours_seeds_seconds=many,
            ours_seeds_compile_seconds=many_compile,
            per_seed_ratio=theirs * args.seeds / many,
        )
        rows.append(row)
        print(
            f"{bsuite_id:<22}{theirs:>10.1f}{one:>15.1f}{one_compile:>11.1f}{row['ratio']:>7.1f}x"
            f"{many:>17.1f}{row['per_seed_ratio']:>15.1f}x",
            flush=True,
        )
    if rows:
        ratios = np.array([r['ratio'] for r in rows])
        print(f'geometric mean ratio, 1 seed: {np.exp(np.log(ratios).mean()):.1f}x')
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        meta = dict(cpu=cpu_kind(), cores=os.cpu_count(), jax=jax.__version__, episodes=args.episodes)
        tmp = args.out / 'results.json.tmp'
        tmp.write_text(json.dumps(dict(meta, rows=rows), indent=1) + '\n')
        tmp.rename(args.out / 'results.json')


if __name__ == '__main__':
    main()
