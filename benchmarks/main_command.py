"""The main command as a user runs it, whole process, against bsuite's own Bootstrapped DQN (issue 29's headline).

Ours: `uncertain-rl train --agent boot_dqn --size 10 --episodes 2000 --seeds 1` (default options otherwise), timed as
a whole process (start-up, imports, compilation or the cache's load, training, writing the results) three times in a
row with a fresh compilation cache: the first run compiles and fills it (cold), the next two load from it (warm).
bsuite: `bsuite.baselines.jax.boot_dqn.default_agent` on bsuite's Deep Sea 10 (map 42), timed over `--bsuite-episodes`
episodes after a 20-episode warm-up (bsuite's agent compiles its own steps then). The ratio is episodes per second,
ours (second run, whole process) over bsuite's (its episode loop alone). All in one run, on one machine. Also prints
the cache's size on disk and each run's own compile/run split.

    pip install -e ".[dev,benchmark]"      # bsuite's agent needs dm-haiku and rlax
    python benchmarks/main_command.py [--episodes 2000] [--bsuite-episodes 1000]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def whole_process(episodes: int, cache: str, out: str) -> tuple[float, str]:
    "Wall seconds of one `uncertain-rl train` process, and its line of compile and run seconds."
    env = dict(os.environ, UNCERTAIN_RL_COMPILATION_CACHE=cache)
    cmd = [
        shutil.which('uncertain-rl') or 'uncertain-rl',
        'train',
        '--agent',
        'boot_dqn',
        '--size',
        '10',
        '--episodes',
        str(episodes),
        '--seeds',
        '1',
        '--out',
        out,
        '--no-progress',
    ]
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    line = next((l for l in done.stdout.splitlines() if l.startswith('compile')), '')
    return seconds, re.sub(r'; results in .*', '', line)


def size_on_disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob('*') if f.is_file())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=2000)
    ap.add_argument('--bsuite-episodes', type=int, default=1000)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from boot_dqn_speed import bsuite_episodes_per_second

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / 'cache'
        runs = [whole_process(args.episodes, str(cache), str(Path(tmp) / f'run{i}')) for i in range(3)]
        cache_bytes = size_on_disk(cache)
    theirs = bsuite_episodes_per_second(args.bsuite_episodes)
    print(f'bsuite boot_dqn: {theirs:.1f} episodes/s over {args.bsuite_episodes} episodes (after a 20-episode warm-up)')
    for i, (seconds, line) in enumerate(runs):
        rate = args.episodes / seconds
        print(
            f"ours, run {i + 1} ({'cold cache' if i == 0 else 'warm cache'}): whole process {seconds:.1f} s, "
            f"{rate:.1f} episodes/s = {rate / theirs:.2f}x bsuite   [{line}]"
        )
    print(f'compilation cache on disk: {cache_bytes / 2**20:.1f} MiB')


if __name__ == '__main__':
    main()
