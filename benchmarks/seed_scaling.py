"""Aggregate throughput against the number of seeds: Bootstrapped DQN (bsuite's defaults) on Deep Sea 10.

Each seed count runs twice in one process through `experiments.run`: vmapped on one device, and laid over every
device, which is the default (on a CPU, `experiments` gives JAX one device per core before it starts; no environment
variable is needed since issue 29). The whole
training is one compiled chunk without evaluations or snapshots; run time only (`RunResult.run_seconds`, compile
time excluded); the ratio is aggregate seed-episodes/s over the one-seed, one-device rate.

    python benchmarks/seed_scaling.py [--episodes 200] [--seeds 1,2,4,8,16]
"""

import argparse
import os

from uncertain_rl.agents.boot_dqn import BootDQNConfig
from uncertain_rl.experiments import Experiment, run, split_keys
from uncertain_rl import runtime

runtime.setup()  # what experiments.run does first; here before jax.devices() below starts JAX
import jax  # noqa: E402

SIZE = 10


def rate(seeds: int, episodes: int, devices) -> tuple[float, dict]:
    "(seed-episodes per second of run time, layout) of `seeds` seeds of Bootstrapped DQN on `devices`."
    res = run(
        Experiment(
            BootDQNConfig(),
            'deep_sea',
            episodes=episodes,
            size=SIZE,
            seeds=seeds,
            keys=split_keys(seeds),
            eval_every=0,
            snapshots=0,
            num_chunks=1,
            devices=devices,
        )
    )
    return seeds * episodes / res.run_seconds, res.layout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=200)
    ap.add_argument('--seeds', default=None, help='comma-separated seed counts (default 1,2,4,8,16; 64 on a GPU)')
    args = ap.parse_args()
    gpu = jax.default_backend() != 'cpu'
    counts = [int(s) for s in (args.seeds or ('1,2,4,8,16,32,64' if gpu else '1,2,4,8,16')).split(',')]
    devs = jax.devices()
    print(
        f"Deep Sea {SIZE}, Bootstrapped DQN (K=20), {args.episodes} episodes per seed; {len(devs)} "
        f"{devs[0].device_kind} device(s), {os.cpu_count()} cores, jax {jax.__version__}"
    )
    print(f"{'seeds':>6}{'one device':>14}{'ratio':>8}{'default':>14}{'ratio':>8}  default layout")
    one = None
    for n in counts:
        r1, _ = rate(n, args.episodes, 1)
        one = one or r1
        ra, lay = rate(n, args.episodes, 'all')
        print(
            f"{n:>6}{r1:>14.1f}{r1 / one:>7.2f}x{ra:>14.1f}{ra / one:>7.2f}x  "
            f"{lay['devices']} device(s) x {lay['runs_per_device']} ({lay['padded']} padded)",
            flush=True,
        )


if __name__ == '__main__':
    main()
