"""Time to a run's first step, one commit against another: the chunk program compiled beside `init` or after it.

`run_chunked` compiles two programs: the loop's `init` (the agent's and environment's first state, the logs) and the
chunk program (`advance`). In `049a84c` they compiled one after the other, `init` first (its carry was what
the chunk program was traced for); `2e73ca1` (adopted since) traces the chunk program for the carry `init` will return
(`carry_spec`) and compiles it on a second thread while `init` compiles and runs. This script times
`run_chunked`'s `compile_seconds` (from its start until the chunk program is compiled, `init` run included) for the
first call of each experiment as `uncertain-rl suite run` makes it (our DQN, bsuite's settings at `--episodes`), and
for `uncertain-rl train`'s default command (Bootstrapped DQN, Deep Sea 10, 2 seeds, evaluations and snapshots on).
Each commit is checked out into a temporary git worktree and timed in a fresh process with only that worktree on
`PYTHONPATH`, the compilation cache off (a first run), the commits alternating for `--repeats` rounds; medians.

    python benchmarks/compile_overlap.py --commits 049a84c 2e73ca1 --repeats 2
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from bsuite_speed import cpu_kind

ROOT = Path(__file__).resolve().parent.parent
CASES = ('bandit', 'catch', 'mountain_car', 'cartpole', 'deep_sea_train')
SNIPPET = """
import json, sys
sys.path.insert(0, 'benchmarks')
from uncertain_rl import runtime
runtime.setup()
from uncertain_rl.experiments import Experiment, prepare
from uncertain_rl.loops import run_chunked, train
case, episodes = sys.argv[1], int(sys.argv[2])
if case == 'deep_sea_train':  # uncertain-rl train's defaults: Bootstrapped DQN, Deep Sea 10, 2 seeds
    exp = Experiment('boot_dqn', 'deep_sea', episodes=episodes, size=10, seeds=2)
else:  # the experiment's first call as `suite run` makes it, our DQN on bsuite's settings
    from bsuite_speed import design_of
    from uncertain_rl.suites.store import arm_calls, run_experiment
    design = design_of(case, None, episodes, None)
    runs, _ = arm_calls(design, design.arms[0])[0]
    exp = run_experiment(design, design.arms[0], runs)
prep = prepare(exp)
res = run_chunked(train(prep.train_config), prep.keys, prep.hparams, num_chunks=50, progress=False,
                  on_chunk=lambda logs, episodes: True, batched_hparams=prep.hparams is not None,
                  env_params=prep.env_params)
print(json.dumps(dict(compile=res.compile_seconds, runs=len(prep.keys), devices=res.layout['devices'])))
"""


def compile_seconds(tree: Path, case: str, episodes: int) -> dict:
    "`run_chunked`'s compile seconds for `case`, in a fresh process on the commit checked out at `tree`."
    env = dict(os.environ, PYTHONPATH=str(tree), UNCERTAIN_RL_COMPILATION_CACHE='off', PYTHONWARNINGS='ignore')
    out = subprocess.run(
        [sys.executable, '-c', SNIPPET, case, str(episodes)], env=env, cwd=tree, capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(f'{case} on {tree.name}: {out.stderr.strip().splitlines()[-1]}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--commits', nargs=2, default=['049a84c', '2e73ca1'], help='before and after')
    ap.add_argument('--cases', nargs='+', default=list(CASES))
    ap.add_argument('--episodes', type=int, default=1000)
    ap.add_argument('--repeats', type=int, default=3)
    args = ap.parse_args()
    print(f'CPU: {cpu_kind()}, {os.cpu_count()} cores; compilation cache off; medians of {args.repeats}')
    times = {(case, c): [] for case in args.cases for c in args.commits}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {c: Path(tmp) / c.replace('/', '_') for c in args.commits}
        for c, tree in trees.items():
            subprocess.run(['git', 'worktree', 'add', '--detach', '-q', str(tree), c], cwd=ROOT, check=True)
        try:
            for r in range(args.repeats):
                for case in args.cases:
                    for c in args.commits:
                        out = compile_seconds(trees[c], case, args.episodes)
                        times[case, c].append(out['compile'])
                        print(f"round {r + 1}, {case}, {c}: {out['compile']:.2f} s ({out['runs']} runs)", flush=True)
        finally:
            for tree in trees.values():
                subprocess.run(['git', 'worktree', 'remove', '--force', str(tree)], cwd=ROOT)
    before, after = args.commits
    print(f'\n| case | {before} (s) | {after} (s) | saved (s) | after / before |\n|---|---:|---:|---:|---:|')
    for case in args.cases:
        b, a = np.median(times[case, before]), np.median(times[case, after])
        print(f'| {case} | {b:.2f} | {a:.2f} | {b - a:.2f} | {a / b:.2f} |')


if __name__ == '__main__':
    main()
