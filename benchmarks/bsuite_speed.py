"""bsuite's settings run whole, through bsuite's own DQN and Python environment and through ours compiled, side by side.

For each bsuite experiment: bsuite's `bsuite.baselines.jax.dqn.default_agent` on `bsuite.load(...)` (Haiku, its update
jitted, one Python step at a time), its settings in one process per core at once (as bsuite runs its sweep), against
our DQN on the same settings run as `uncertain-rl
suite run` runs them: the suite's own calls (`suites.store.arm_calls`: the settings that share a program vmapped in one
call, each with its own environment parameters), each an `experiments.run` of `suites.store.run_experiment`'s
`Experiment` (the registered DQN, no evaluations or snapshots, stopping once every run has its episodes). Both sides
are timed whole after the imports: building the environments and the agent, compiling (ours into an empty
compilation cache, as a first run), and running. Seconds per setting: bsuite's wall time over its runs, ours each
call's whole time over its runs. One row per experiment: its settings and episodes, both times per setting, ours'
compile time, the ratio bsuite / ours; the CPU kind printed.

    pip install -e ".[dev,benchmark]"     # bsuite's agent needs dm-haiku and rlax
    python benchmarks/bsuite_speed.py --profile cpu [--settings 2] [--experiments catch bandit ...] [--out DIR]
    python benchmarks/bsuite_speed.py --episodes 100 [--settings 1]    # every setting at a flat budget

`--profile cpu` takes the `cpu` profile's settings and episodes (its caps); `--episodes N` bsuite's first settings at
N episodes. `--settings K` keeps each experiment's first K settings (bsuite's side runs them one by one: on two cores
the whole `cpu` profile takes it about an hour). MNIST needs the digits in the user's cache
(`uncertain_rl.envs.mnist.fetch_mnist()`); without them it is skipped and the table says so.
"""

import argparse
import json
import multiprocessing
import os
import platform
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

EXPERIMENTS = (
    'bandit',
    'catch',
    'cartpole',
    'cartpole_swingup',
    'mountain_car',
    'discounting_chain',
    'memory_len',
    'umbrella_length',
    'deep_sea',
    'mnist',
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


def bsuite_run(bsuite_id: str, episodes: int, seed: int = 0) -> tuple:
    "(start, end) wall-clock times of bsuite's DQN on bsuite's environment for `episodes` episodes, building included."
    import bsuite
    from bsuite import sweep
    from bsuite.baselines.jax import dqn

    start = time.time()
    env = bsuite.load(bsuite_id.split('/')[0], sweep.SETTINGS[bsuite_id])
    agent = dqn.default_agent(env.observation_spec(), env.action_spec(), seed=seed)
    for _ in range(episodes):
        ts = env.reset()
        while not ts.last():
            action = agent.select_action(ts)
            new_ts = env.step(action)
            agent.update(ts, action, new_ts)
            ts = new_ts
    return start, time.time()


def bsuite_seconds(pool, runs: list) -> float:
    """bsuite's seconds per setting on this machine: `runs` ([(id, episodes, seed)]) spread over `pool`'s worker
    processes, one per core (bsuite runs its sweep as parallel processes), from the first start to the last end,
    over the number of runs (the workers' imports before their first start are not counted)."""
    spans = pool.starmap(bsuite_run, runs, chunksize=1)
    return (max(e for _, e in spans) - min(s for s, _ in spans)) / len(runs)


def design_of(experiment: str, profile: str | None, episodes: int | None, settings: int | None):
    "The suite's design of `experiment` for DQN: the profile's runs and budgets, or bsuite's settings at `episodes`."
    from uncertain_rl.suites.core import PROFILES, Arm, suites
    from uncertain_rl.suites.store import Design, Run, table_design

    suite = suites()[experiment]
    if profile is not None:
        design = table_design(PROFILES[profile], suite, ['dqn'])
    else:
        runs = tuple(Run(i, s, 0, 0, episodes) for i, s in enumerate(suite.settings))
        design = Design('speed', suite, (Arm('dqn', 'dqn'),), runs, True)
    return design._replace(runs=design.runs[:settings]) if settings else design


def our_seconds(design) -> tuple:
    "(wall seconds, compile seconds, runs) of our DQN on `design`'s runs, call by call as `suite run` makes them."
    from uncertain_rl.experiments import run
    from uncertain_rl.suites.store import arm_calls, run_experiment

    arm = design.arms[0]
    start, compile_seconds, played = time.perf_counter(), 0.0, 0
    for runs, _ in arm_calls(design, arm):
        res = run(run_experiment(design, arm, runs), progress=False)
        compile_seconds += res.compile_seconds
        played += len(runs)
        if not (np.asarray(res.episodes) >= runs[0].budget).all():
            raise RuntimeError(f'{design.suite.name}: not every run played its {runs[0].budget} episodes')
    return time.perf_counter() - start, compile_seconds, played


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--profile', default=None, help="a suite profile's settings and episodes (cpu)")
    ap.add_argument('--episodes', type=int, default=None, help="without --profile: bsuite's settings at N episodes")
    ap.add_argument('--settings', type=int, default=None, help="each experiment's first K runs (default: all)")
    ap.add_argument(
        '--bsuite-runs',
        type=int,
        default=None,
        help="bsuite's side runs only the first K of them (settings of equal cost), its time per setting theirs",
    )
    ap.add_argument('--experiments', nargs='+', default=list(EXPERIMENTS))
    ap.add_argument('--out', type=Path, default=None, help='write the table as results.json into this folder')
    args = ap.parse_args()
    if (args.profile is None) == (args.episodes is None):
        ap.error('give --profile NAME or --episodes N (exactly one)')
    from uncertain_rl import runtime
    from uncertain_rl.envs.mnist import MNIST_FILES, mnist_cache_dir

    # before anything starts JAX: one CPU device per core, as `uncertain-rl suite run` has, and a compilation cache
    # of its own, empty, so that every compile is timed as a first run's (none is read from earlier runs)
    setup = runtime.setup(cache=tempfile.mkdtemp(prefix='bsuite_speed_cache_'))
    have_mnist = all(os.path.isfile(os.path.join(mnist_cache_dir(), f)) for f in MNIST_FILES)
    budget = f'profile {args.profile}' if args.profile else f'{args.episodes} episodes a run'
    print(f'CPU: {cpu_kind()}, {os.cpu_count()} cores; jax {jax.__version__}; {budget}')
    print(f"ours: CPU devices {setup['cpu_devices']}, an empty compilation cache")
    print(
        f"seconds per setting: bsuite's runs in {os.cpu_count()} processes at once, their wall time over the runs; "
        "ours: every call's whole time over its runs"
    )
    head = f"{'experiment':<20}{'runs':>5}{'bsuite ran':>11}{'episodes':>9}{'bsuite s':>10}{'ours s':>9}"
    print(head + f"{'(compile)':>11}{'ratio':>8}")
    rows = []
    pool = multiprocessing.get_context('spawn').Pool(os.cpu_count())  # bsuite's side: one process per core
    pool.starmap(bsuite_run, [('bandit/0', 1, 0)] * os.cpu_count(), chunksize=1)  # each worker imports bsuite first
    for experiment in args.experiments:
        if experiment.startswith('mnist') and not have_mnist:
            print(f'{experiment:<20}skipped: MNIST is not in {mnist_cache_dir()} (fetch_mnist())')
            continue
        design = design_of(experiment, args.profile, args.episodes, args.settings)
        runs = [r for r in design.runs if r.index is not None]  # bsuite runs its own sweep's settings only
        design = design._replace(runs=tuple(runs))
        sample = runs[: args.bsuite_runs] if args.bsuite_runs else runs
        theirs = bsuite_seconds(pool, [(f'{experiment}/{r.index}', r.budget, r.seed) for r in sample])
        ours, compile_seconds, played = our_seconds(design)
        ours, compile_seconds = ours / played, compile_seconds / played  # per setting
        row = dict(
            experiment=experiment,
            bsuite_ids=[f'{experiment}/{r.index}' for r in runs],
            seeds=[r.seed for r in runs],
            episodes=[r.budget for r in runs],
            bsuite_runs=len(sample),
            bsuite_seconds_per_setting=theirs,
            ours_seconds_per_setting=ours,
            ours_compile_seconds_per_setting=compile_seconds,
            ratio=theirs / ours,
        )
        rows.append(row)
        eps = sorted(set(row['episodes']))
        print(
            f"{experiment:<20}{len(runs):>5}{len(sample):>11}{'/'.join(map(str, eps)):>9}{theirs:>10.1f}{ours:>9.2f}"
            f"{compile_seconds:>11.2f}{row['ratio']:>7.1f}x",
            flush=True,
        )
    pool.close()
    if rows:
        ratios = np.array([r['ratio'] for r in rows])
        print(f'geometric mean ratio: {np.exp(np.log(ratios).mean()):.1f}x')
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        meta = dict(
            cpu=cpu_kind(),
            cores=os.cpu_count(),
            jax=jax.__version__,
            profile=args.profile,
            episodes=args.episodes,
            cpu_devices=setup['cpu_devices'],
        )
        tmp = args.out / 'results.json.tmp'
        tmp.write_text(json.dumps(dict(meta, rows=rows), indent=1) + '\n')
        tmp.rename(args.out / 'results.json')


if __name__ == '__main__':
    main()
