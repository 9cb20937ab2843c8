"""Random draws on a CPU: JAX's Threefry as a loop (JAX's CPU default) against written out (`use_unrolled_threefry`).

Bootstrapped DQN (bsuite's defaults) on Deep Sea 10, one seed, `--episodes` episodes as one compiled chunk without
evaluations or snapshots, each variant in a fresh process, alternating for `--repeats` rounds; run time only
(compilation reported apart) and the process's CPU time per environment step. The two variants draw the same
random bits; the script checks that their logged returns agree to float32 rounding.

    python benchmarks/threefry_cpu.py [--episodes 1000] [--repeats 3]
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

SNIPPET = """
import json, sys, time
import jax, numpy as np
from uncertain_rl.loops import train, TrainConfig, run_chunked
from uncertain_rl.runtime import use_unrolled_threefry
from uncertain_rl.base import gymnax_spec
from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.deep_sea import DeepSea
unrolled, episodes = sys.argv[1] == 'unrolled', int(sys.argv[2])
use_unrolled_threefry(unrolled)
env = DeepSea(10, mapping_seed=42)
run = train(TrainConfig(env, make_boot_dqn(BootDQNConfig(), gymnax_spec(env)), num_steps=10 * episodes,
                        max_episodes=episodes))
cpu = time.process_time()
res = run_chunked(run, jax.random.PRNGKey(0)[None], num_chunks=1, progress=False, devices=1)
print(json.dumps(dict(rate=episodes / res.run_seconds, compile=res.compile_seconds,
                      returns=float(np.nansum(res.logs['episode_return'])))))
"""


def once(variant: str, episodes: int) -> dict:
    env = dict(os.environ, UNCERTAIN_RL_COMPILATION_CACHE='off', PYTHONWARNINGS='ignore')
    out = subprocess.run(
        [sys.executable, '-c', SNIPPET, variant, str(episodes)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=1000)
    ap.add_argument('--repeats', type=int, default=3)
    args = ap.parse_args()
    res = {v: [] for v in ('rolled', 'unrolled')}
    for r in range(args.repeats):
        for v in res:
            res[v].append(once(v, args.episodes))
            print(
                f"round {r + 1}, {v}: {res[v][-1]['rate']:.1f} episodes/s, compile {res[v][-1]['compile']:.1f} s",
                flush=True,
            )
    print(
        f'\nBootstrapped DQN, Deep Sea 10, 1 seed, {args.episodes} episodes, run time only; medians of {args.repeats}:'
    )
    print('| Threefry on the CPU | episodes/s | compile (s) |\n|---|---:|---:|')
    for v, xs in res.items():
        print(f"| {v} | {np.median([x['rate'] for x in xs]):.1f} | {np.median([x['compile'] for x in xs]):.1f} |")
    ratio = np.median([x['rate'] for x in res['unrolled']]) / np.median([x['rate'] for x in res['rolled']])
    same = np.allclose([x['returns'] for x in res['rolled']], [x['returns'] for x in res['unrolled']], rtol=1e-5)
    print(f'unrolled / rolled: {ratio:.2f}x; summed returns agree to float32 rounding: {same}')


if __name__ == '__main__':
    main()
