"""What recording the viewer's snapshots costs: run time with snapshots off against snapshots every 10 episodes.

Registry agents `boot_dqn` and `tdu` (their defaults: bsuite's, 20 members) on Deep Sea 10 (map 42), 500 episodes
(5,000 steps), all seeds vmapped in one compiled run through `experiments.run` (10 chunks, like the command line).
Both arms evaluate as the command line does by default (every 250 steps, 5 greedy episodes of 10 steps), so only the
snapshots differ: off, or every 100 steps (51 snapshots, the command line's default of about 50 a run). Run time is
`RunResult.run_seconds` (compilation excluded, reported apart); the arms alternate, `--repeats` times each, and
the median is reported. Compile seconds are the first (cold) compile of each arm: repeats load the compiled program
from a temporary persistent compilation cache, which keeps the whole benchmark near 10 minutes on a 2-core CPU
with the defaults. Also the size of the `snapshots.npz` the command line would write. The table is written to
`results/snapshot_overhead.txt`. Whole-run times on a shared 2-core machine vary by ±10 % or more, so the last
column is a steadier bound on what the snapshots compute: one snapshot of every seed (`loops.cell_snapshot`, the
agent's `cell_signals` included), timed alone and compiled, times the number of snapshots, over the median run time
with snapshots off.

    python benchmarks/snapshot_overhead.py [--seeds 4] [--repeats 3]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

from uncertain_rl.experiments import Experiment, prepare, run, snapshot_period
from uncertain_rl.loops import cell_snapshot
from uncertain_rl.rundir import save_snapshots

ENV, SIZE, MAPPING_SEED = 'deep_sea', 10, 42
EVAL_EVERY, EVAL_EPISODES = 250, 5  # the command line's defaults for 5,000 steps
SNAPSHOT_EVERY = 100  # the command line's default for 500 episodes: every 10 episodes
RESULTS = Path(__file__).parent / 'results' / 'snapshot_overhead.txt'


def experiment(agent_name: str, seeds: int, episodes: int, snapshot_every: int) -> Experiment:
    "The registry's `agent_name` on Deep Sea as the command line runs it, a snapshot every `snapshot_every` steps."
    steps = episodes * SIZE
    count = steps // snapshot_every if snapshot_every else 0  # `Experiment` takes snapshots per run
    if snapshot_period(count, steps, SIZE) != snapshot_every:
        raise ValueError(
            f"snapshot_every must be a whole number of episodes that divides the budget of {steps} steps "
            f"(the periods `experiments.run` records), got {snapshot_every}"
        )
    return Experiment(
        agent_name,
        ENV,
        episodes=episodes,
        size=SIZE,
        mapping_seed=MAPPING_SEED,
        seeds=seeds,
        eval_every=EVAL_EVERY,
        eval_episodes=EVAL_EPISODES,
        snapshots=count,
        num_chunks=10,
    )


def npz_bytes(res) -> int:
    "The size of the snapshots.npz the command line would write for `res`."
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / 'snapshots.npz'
        save_snapshots(res.snapshots, path)
        return path.stat().st_size


def snapshot_seconds(env, agent, agent_state, keys, repeats: int = 20) -> float:
    "Median seconds of one snapshot of every seed (vmapped, compiled alone) from `agent_state`."
    cells, params = env.cells(env.default_params), env.default_params
    f = jax.jit(jax.vmap(lambda s, k: cell_snapshot(env, agent, s, cells, k, params)))
    jax.block_until_ready(f(agent_state, keys))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(f(agent_state, keys))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--agents', nargs='+', default=['boot_dqn', 'tdu'])
    ap.add_argument('--seeds', type=int, default=4)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--episodes', type=int, default=500)
    ap.add_argument(
        '--snapshot-every',
        type=int,
        default=SNAPSHOT_EVERY,
        help='environment steps between snapshots (whole episodes)',
    )
    ap.add_argument('--out', type=Path, default=RESULTS)
    args = ap.parse_args()
    cache = tempfile.TemporaryDirectory()  # repeats reuse the compiled program (compile excluded anyway)
    jax.config.update('jax_compilation_cache_dir', cache.name)
    jax.config.update('jax_persistent_cache_min_compile_time_secs', 0.0)
    seeds = list(range(args.seeds))
    keys = jax.vmap(jax.random.PRNGKey)(np.asarray(seeds))
    lines = [
        f"Deep Sea {SIZE} (map {MAPPING_SEED}), {args.episodes} episodes, {args.seeds} vmapped seeds, "
        f"evaluations every {EVAL_EVERY} steps ({EVAL_EPISODES} episodes), snapshots every "
        f"{args.snapshot_every} steps ({args.episodes * SIZE // args.snapshot_every + 1} a run) or none; "
        f"{jax.devices()[0].platform}, jax {jax.__version__}; median of {args.repeats} alternating repeats",
        f"{'agent':<10}{'run s off':>11}{'run s on':>10}{'overhead':>10}{'compile off':>13}{'compile on':>12}"
        f"{'npz KiB':>9}{'snapshot compute':>18}  runs off / on (s)",
    ]
    print(lines[0])
    print(lines[1], flush=True)
    for name in args.agents:
        arms = {
            'off': experiment(name, args.seeds, args.episodes, 0),
            'on': experiment(name, args.seeds, args.episodes, args.snapshot_every),
        }
        times, compiles, size, snap = {'off': [], 'on': []}, {'off': [], 'on': []}, None, None
        for r in range(args.repeats):
            for arm in ('off', 'on') if r % 2 == 0 else ('on', 'off'):  # alternate which arm goes first
                res = run(arms[arm])
                times[arm].append(res.run_seconds)
                compiles[arm].append(res.compile_seconds)
                if arm == 'on' and size is None:
                    size = npz_bytes(res)
                    tc = prepare(arms[arm]).train_config  # the run's environment and agent
                    snap = snapshot_seconds(tc.env, tc.agent, res.agent_state, keys) * tc.num_snapshots
        off, on = statistics.median(times['off']), statistics.median(times['on'])
        line = (
            f"{name:<10}{off:>11.1f}{on:>10.1f}{100 * (on - off) / off:>9.1f}%"
            f"{compiles['off'][0]:>13.1f}{compiles['on'][0]:>12.1f}"
            f"{size / 1024:>9.0f}{f'{snap:.2f} s, {100 * snap / off:.1f}%':>18}  "
            f"{' '.join(f'{t:.1f}' for t in times['off'])} / {' '.join(f'{t:.1f}' for t in times['on'])}"
        )
        lines.append(line)
        print(line, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text('\n'.join(lines) + '\n')
    print(f"written to {args.out}")


if __name__ == '__main__':
    main()
