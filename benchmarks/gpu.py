"""Issue 29's accelerator numbers in one command: run it on a machine with a GPU (it runs on a CPU too, for a dry run).

1. Bootstrapped DQN (bsuite's defaults) on Deep Sea 10: aggregate seed-episodes per second of run time at 1, 8, 64
   and 512 seeds (one compiled chunk, no evaluations or snapshots), and the compile time.
2. E-AZ (tabular, the true model) on Deep Sea 14, 300 episodes: the same at 1, 5 and 64 seeds on the default device,
   and at 5 seeds on the CPU in the same run (targets: the GPU faster than the CPU at 5 seeds; 64 seeds at least
   32x one seed's aggregate throughput).
3. Compile time with the default options and a cold cache (`compile_time.py`): Bootstrapped DQN, E-AZ and the
   learned E-AZ on Deep Sea 8, 60 episodes, 2 seeds (target: the search agents at most 1.5x Bootstrapped DQN).
4. The main command as a user runs it (`uncertain-rl train --agent boot_dqn --size 10 --episodes 2000 --seeds 1`),
   whole process, with a fresh compilation cache (cold) and again (warm); and with 256 seeds x 500 episodes.

    pip install -e ".[dev]"
    python benchmarks/gpu.py            # about 10 minutes on an H100
    python benchmarks/gpu.py --quick    # a dry run: fewer seeds and episodes

Results go to standard output as Markdown tables; `benchmarks/results/gpu/README.md` keeps the measured ones.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from uncertain_rl.experiments import Experiment, run
from uncertain_rl import runtime

runtime.setup()  # as experiments.run does, before jax.devices() below starts JAX
import jax  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compile_time import once as compile_once  # noqa: E402


def throughput(agent: str, size: int, episodes: int, seeds: int, devices='all') -> tuple:
    "(aggregate seed-episodes per second of run time, compile seconds, layout) of one compiled chunk."
    res = run(
        Experiment(
            agent,
            'deep_sea',
            episodes=episodes,
            size=size,
            seeds=seeds,
            eval_every=0,
            snapshots=0,
            num_chunks=1,
            devices=devices,
        )
    )
    return seeds * episodes / res.run_seconds, res.compile_seconds, res.layout


def table(title: str, rows: list) -> None:
    print(f'\n{title}\n| seeds | device | seed-episodes/s | vs 1 seed | compile (s) |\n|---:|---|---:|---:|---:|')
    one = next((r for s, d, r, c in rows if s == 1), None)
    for seeds, device, rate, compile_s in rows:
        print(
            f"| {seeds} | {device} | {rate:,.1f} | {f'{rate / one:.1f}x' if one else 'n/a'} | {compile_s:.1f} |",
            flush=True,
        )


def whole_process(args: list, cache: str) -> tuple:
    "Wall seconds of one training process run as the command line runs it, and its line of compile and run seconds."
    env = dict(os.environ, UNCERTAIN_RL_COMPILATION_CACHE=cache)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', 'train', '--agent', 'boot_dqn', '--size', '10', '--no-progress', *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - start
    line = next((l for l in done.stdout.splitlines() if l.startswith('compile')), '')
    return seconds, re.sub(r'; results in .*', '', line)


def main_command(quick: bool) -> None:
    "The main command's whole process, cold and warm cache, at 1 seed and at 256 seeds."
    print('\nThe main command, whole process (imports, compile or cache load, training, writing):')
    print('| command | cache | whole process (s) | seed-episodes/s | compile and run |\n|---|---|---:|---:|---|')
    with tempfile.TemporaryDirectory() as tmp:
        for seeds, episodes in ((1, 100), (8, 50)) if quick else ((1, 2000), (256, 500)):
            cache = f'{tmp}/cache{seeds}'
            for i, state in enumerate(('cold', 'warm')):
                seconds, line = whole_process(
                    ['--episodes', str(episodes), '--seeds', str(seeds), '--out', f'{tmp}/run{seeds}_{i}'], cache
                )
                print(
                    f'| {seeds} seed(s) x {episodes} episodes | {state} | {seconds:.1f} | '
                    f'{seeds * episodes / seconds:,.1f} | {line} |',
                    flush=True,
                )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='a dry run: fewer seeds and episodes')
    ap.add_argument('--eaz-episodes', type=int, default=300, help="E-AZ's episodes on Deep Sea 14 (default 300)")
    args = ap.parse_args()
    dev = jax.devices()[0]
    print(
        f'{dev.platform}: {len(jax.devices())} x {dev.device_kind}; {os.cpu_count()} CPU cores; jax {jax.__version__}; '
        f'{time.strftime("%Y-%m-%d")}'
    )
    kind = f'{dev.platform} ({dev.device_kind})'
    seeds = (1, 8) if args.quick else (1, 8, 64, 512)
    rows = [(n, kind, *throughput('boot_dqn', 10, 50 if args.quick else 200, n)[:2]) for n in seeds]
    table('Bootstrapped DQN, Deep Sea 10, run time only:', rows)

    episodes = 20 if args.quick else args.eaz_episodes
    seeds = (1, 5) if args.quick else (1, 5, 64)
    rows = [(n, kind, *throughput('e_az', 14, episodes, n)[:2]) for n in seeds]
    if dev.platform != 'cpu':
        rows.append((5, 'cpu', *throughput('e_az', 14, episodes, 5, devices=jax.devices('cpu'))[:2]))
    table(f'E-AZ (tabular), Deep Sea 14, {episodes} episodes, run time only:', rows)
    if dev.platform != 'cpu':
        gpu5, cpu5 = next(r for s, d, r, c in rows if s == 5 and d == kind), rows[-1][2]
        print(f'E-AZ at 5 seeds: {kind} {gpu5:.1f} vs cpu {cpu5:.1f} seed-episodes/s ({gpu5 / cpu5:.2f}x)')

    print('\nDefault options (evaluations, snapshots), cold cache, Deep Sea 8, 60 episodes, 2 seeds:')
    print('| agent | compile (s) | run (s) | compile vs boot_dqn |\n|---|---:|---:|---:|')
    times = {a: compile_once(a) for a in ('boot_dqn', 'e_az', 'e_az_net')}
    for a, t in times.items():
        print(
            f"| {a} | {t['compile']:.1f} | {t['run']:.1f} | {t['compile'] / times['boot_dqn']['compile']:.2f}x |",
            flush=True,
        )
    main_command(args.quick)


if __name__ == '__main__':
    main()
