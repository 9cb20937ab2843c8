"""DQN on MinAtar Breakout beside MinAtar's own DQN: our DQN with the settings of MinAtar's `examples/dqn.py`, its
training returns (a moving average over 100 episodes, as the MinAtar README's learning curves plot them) against the
published DQN curve at the same frames.

MinAtar's DQN (Young & Tian 2019; the repository's `examples/dqn.py`): its network (3x3 convolution of 16 channels,
128 ReLU units), batch 32, replay of 100,000, 5,000 frames before learning (acting at random), one update per frame,
target copies every 1,000 frames, ε from 1 to 0.1 over the first 100,000 frames, Huber loss (`smooth_l1_loss`),
γ = 0.99, step size 2.5e-4, sticky actions 0.1 and the six actions (MinAtar's defaults, ours too). Ours differs in its
optimiser (Adam, where theirs is centered RMSProp: our DQN has Adam only) and its initialisation (our DQN's default,
Haiku's truncated normal of scale 1/sqrt(fan_in); theirs PyTorch's). The published curve is the mean of 30 runs over
5M frames, read off the README's figure (`oracles/minatar/digitize_curves.py`; the values are in
`results/minatar_dqn_reference/published.json`).

Compared: each seed's 100-episode moving average of training returns at the frames where the published curve is read,
their mean and range beside the published value. A few seeds: a check of the level, not a test of equality.

    python benchmarks/minatar_dqn_reference.py [--steps 300000] [--seeds 3]
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bsuite_speed import cpu_kind
from minatar_dqn_speed import load, versions
from uncertain_rl.agents.dqn import DQNConfig
from uncertain_rl.envs.minatar import MinAtar
from uncertain_rl.experiments import Experiment, run, split_keys

HERE = Path(__file__).resolve().parent
OUT = HERE / 'results' / 'minatar_dqn_reference'
WINDOW = 100  # the published curves' moving average, in episodes


def minatar_dqn_config() -> DQNConfig:
    "Our DQN with MinAtar's `examples/dqn.py` settings (Adam for its centered RMSProp)."
    return DQNConfig(
        hidden_sizes=(128,),
        batch_size=32,
        replay_capacity=100_000,
        min_replay_size=5_000,
        sgd_period=1,
        sgd_steps_per_update=1,
        target_update_period=1_000,
        learning_rate=2.5e-4,
        discount=0.99,
        epsilon_start=1.0,
        epsilon=0.1,
        epsilon_decay_steps=100_000,
        uniform_warmup=True,
        loss='huber',
        double_q=False,
        max_grad_norm=None,
    )


def moving_average_at(returns, lengths, frames) -> list:
    "The mean return of the last `WINDOW` episodes finished by each of `frames` (None before any)."
    returns, ends = np.asarray(returns, float), np.cumsum(np.asarray(lengths, np.int64))
    out = []
    for f in frames:
        done = int((ends <= f).sum())
        out.append(float(returns[max(0, done - WINDOW) : done].mean()) if done else None)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=300_000)
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--chunks', type=int, default=30, help='progress lines: the run in this many compiled pieces')
    args = ap.parse_args()
    published = json.loads((OUT / 'published.json').read_text())
    frames = [int(f) for f in published['breakout_dqn'] if int(f) <= args.steps]
    before, t = load(), time.perf_counter()
    res = run(
        Experiment(
            minatar_dqn_config(),
            MinAtar('breakout'),
            steps=args.steps,
            seeds=args.seeds,
            keys=split_keys(args.seeds),
            eval_every=0,
            snapshots=0,
            num_chunks=args.chunks,
            devices=1,
        )
    )
    seconds = time.perf_counter() - t
    per_seed = []
    for i in range(args.seeds):
        n = int(res.episodes[i])
        per_seed.append(moving_average_at(res.logs['episode_return'][i][:n], res.logs['episode_length'][i][:n], frames))
    rows = []
    for j, f in enumerate(frames):
        ours = [s[j] for s in per_seed if s[j] is not None]
        rows.append(
            dict(
                frames=f,
                published=published['breakout_dqn'][str(f)],
                ours_mean=float(np.mean(ours)) if ours else None,
                ours_min=float(np.min(ours)) if ours else None,
                ours_max=float(np.max(ours)) if ours else None,
            )
        )
    result = dict(
        benchmark='minatar_dqn_reference',
        cpu=cpu_kind(),
        cores=__import__('os').cpu_count(),
        load_average_before=before,
        load_average_after=load(),
        versions=versions(),
        steps=args.steps,
        seeds=args.seeds,
        seconds=seconds,
        episodes=[int(e) for e in res.episodes],
        per_seed=per_seed,
        rows=rows,
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / 'result.json').write_text(json.dumps(result, indent=1))
    print('| frames | MinAtar DQN (published, 30 runs) | ours: mean [min, max] of seeds |\n|---:|---:|---:|')
    for r in rows:
        ours = '-' if r['ours_mean'] is None else f"{r['ours_mean']:.2f} [{r['ours_min']:.2f}, {r['ours_max']:.2f}]"
        print(f"| {r['frames']:,} | {r['published']:.1f} | {ours} |")
    print(f'{seconds:.0f} s, {cpu_kind()}')


if __name__ == '__main__':
    main()
