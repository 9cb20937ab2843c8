"""What checkpointing costs a run: the same experiment (Bootstrapped DQN, bsuite's defaults, Deep Sea N, four seeds)
trained with no checkpoints and with a checkpoint every 5 and every chunk (of 50), into a run directory each time;
prints each run's training seconds, the ratio to the run without, the seconds one checkpoint takes and its size on
disk. Usage: python benchmarks/checkpoint_cost.py [N] [EPISODES]."""

import sys
import tempfile
import time
from pathlib import Path

from uncertain_rl.experiments import Experiment, run
from uncertain_rl.checkpoints import save_checkpoint


def main(size: int = 20, episodes: int = 200) -> None:
    base = dict(agent='boot_dqn', env='deep_sea', size=size, episodes=episodes, seeds=4, snapshots=0, eval_every=0)
    seconds = {}
    for every in (0, 5, 1):
        with tempfile.TemporaryDirectory() as d:
            result = run(Experiment(**base, checkpoint_every=every), out=Path(d) / 'run')
            seconds[every] = result.run_seconds
    with tempfile.TemporaryDirectory() as d:  # one checkpoint of this run's carry, alone
        from uncertain_rl.experiments import prepare
        from uncertain_rl.loops import train, run_layout, lay_out, on_devices

        prep = prepare(Experiment(**base))
        layout = run_layout(len(prep.keys))
        carry = on_devices(train(prep.train_config).init, layout, (True,))(lay_out(prep.keys, layout))
        start = time.perf_counter()
        save_checkpoint(Path(d) / 'ck', 1, carry, dict(runs=4))
        one = time.perf_counter() - start
        size_mb = sum(f.stat().st_size for f in (Path(d) / 'ck').rglob('*') if f.is_file()) / 1e6
    print(f"boot_dqn on Deep Sea {size}, 4 seeds, {episodes} episodes (50 chunks):")
    for every, s in seconds.items():
        label = 'no checkpoints' if not every else f'a checkpoint every {every} chunk{"s" if every > 1 else ""}'
        print(f"  {label:32s} {s:7.1f} s  ({s / seconds[0]:.2f}x)")
    print(f"  one checkpoint: {one:.2f} s, {size_mb:.1f} MB on disk")


if __name__ == '__main__':
    main(*(int(a) for a in sys.argv[1:3]))
