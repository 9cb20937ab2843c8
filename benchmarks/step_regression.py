"""Where Bootstrapped DQN's per-step speed went: one commit against another, timed in one run (issue 29, item 1).

Each commit is checked out into a temporary git worktree and timed in a fresh process with only that worktree on
`PYTHONPATH` (same interpreter, same installed packages): Bootstrapped DQN with the commit's defaults on Deep Sea 10
(map 42), one seed, `--episodes` episodes as one compiled chunk, no evaluations or snapshots, run time only
(compilation excluded). The commits alternate (A B C A B C ...) for `--repeats` rounds, so a slow patch of the
machine touches every commit alike; the table gives each commit's median and range in episodes per second.

    python benchmarks/step_regression.py                                  # bd847ed, the seams/parity commits, HEAD
    python benchmarks/step_regression.py --commits bd847ed HEAD --repeats 5
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
COMMITS = ('bd847ed', 'c9c6826', 'e32d1f6', 'd80bc62', '6aff80c', 'HEAD')
SNIPPET = """
import sys, jax
try: from uncertain_rl import runtime; runtime.setup()    # commits before runtime.py: run_chunked set the process up
except ImportError: pass
from uncertain_rl.loops import train, TrainConfig, run_chunked
try: from uncertain_rl.base import gymnax_spec
except ImportError: from uncertain_rl.loops import gymnax_spec
from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.deep_sea import DeepSea
episodes = int(sys.argv[1])
env = DeepSea(10, mapping_seed=42)
run = train(TrainConfig(env, make_boot_dqn(BootDQNConfig(), gymnax_spec(env)), num_steps=10 * episodes,
                        max_episodes=episodes))
res = run_chunked(run, jax.random.PRNGKey(0)[None], num_chunks=1, progress=False)
print(episodes / res.run_seconds)
"""


def rate(tree: Path, episodes: int) -> float:
    "Episodes per second of run time, in a fresh process on the commit checked out at `tree`."
    env = dict(os.environ, PYTHONPATH=str(tree), UNCERTAIN_RL_COMPILATION_CACHE='off', PYTHONWARNINGS='ignore')
    out = subprocess.run(
        [sys.executable, '-c', SNIPPET, str(episodes)], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--commits', nargs='*', default=list(COMMITS))
    ap.add_argument('--episodes', type=int, default=2000)
    ap.add_argument('--repeats', type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for c in args.commits:
            trees[c] = Path(tmp) / c
            subprocess.run(['git', 'worktree', 'add', '--detach', '-q', str(trees[c]), c], cwd=ROOT, check=True)
        try:
            rates = {c: [] for c in args.commits}
            for r in range(args.repeats):
                for c in args.commits:
                    rates[c].append(rate(trees[c], args.episodes))
                    print(f'round {r + 1}, {c}: {rates[c][-1]:.1f} episodes/s', flush=True)
        finally:
            for t in trees.values():
                subprocess.run(['git', 'worktree', 'remove', '--force', str(t)], cwd=ROOT)
    print(f'\nBootstrapped DQN, Deep Sea 10, 1 seed, {args.episodes} episodes, run time only (episodes/s):')
    print('| commit | median | range |\n|---|---:|---:|')
    for c, xs in rates.items():
        print(f'| {c} | {np.median(xs):.1f} | {min(xs):.1f} - {max(xs):.1f} |')


if __name__ == '__main__':
    main()
