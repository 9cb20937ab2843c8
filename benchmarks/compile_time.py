"""Compile time of the search agents against Bootstrapped DQN's on the same command (issue 29, item 2).

The command: Deep Sea 8, 60 episodes, 2 seeds, default options (greedy evaluations and viewer snapshots on), as
`uncertain-rl train --agent A --size 8 --episodes 60 --seeds 2` runs it, through `experiments.run`. Each agent runs in
a fresh process with the compilation cache off (a cold start: what a first run on a machine costs), `--repeats` times,
alternating; the table gives the median compile and run seconds and the ratio of each agent's median compile time to
Bootstrapped DQN's. Target: at most 1.5x for the tabular E-AZ and the learned one.

    python benchmarks/compile_time.py [--agents boot_dqn,e_az,e_az_net] [--repeats 2]
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

SNIPPET = """
import json, sys
from uncertain_rl.experiments import Experiment, run
res = run(Experiment(sys.argv[1], 'deep_sea', episodes=60, size=8, seeds=2))
print(json.dumps(dict(compile=res.compile_seconds, run=res.run_seconds, layout=res.layout)))
"""


def once(agent: str) -> dict:
    env = dict(os.environ, UNCERTAIN_RL_COMPILATION_CACHE='off', PYTHONWARNINGS='ignore')
    out = subprocess.run([sys.executable, '-c', SNIPPET, agent], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--agents', default='boot_dqn,e_az,e_az_net')
    ap.add_argument('--repeats', type=int, default=2)
    args = ap.parse_args()
    agents = args.agents.split(',')
    times = {a: [] for a in agents}
    for r in range(args.repeats):
        for a in agents:
            times[a].append(once(a))
            print(
                f"round {r + 1}, {a}: compile {times[a][-1]['compile']:.1f} s, run {times[a][-1]['run']:.1f} s",
                flush=True,
            )
    layout = times[agents[0]][0]['layout']
    print(
        f"\nDeep Sea 8, 60 episodes, 2 seeds, default options, cold cache; {layout['platform']}, "
        f"{layout['devices']} device(s) ({layout.get('cpu_devices', '')}); medians of {args.repeats}:"
    )
    print('| agent | compile (s) | run (s) | compile vs boot_dqn |\n|---|---:|---:|---:|')
    ref = np.median([t['compile'] for t in times['boot_dqn']]) if 'boot_dqn' in times else None
    for a, ts in times.items():
        c, r = np.median([t['compile'] for t in ts]), np.median([t['run'] for t in ts])
        print(f"| {a} | {c:.1f} | {r:.1f} | {f'{c / ref:.2f}x' if ref else 'n/a'} |")


if __name__ == '__main__':
    main()
