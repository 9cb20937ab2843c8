"""DQN on MinAtar Breakout, learning: our DQN's greedy returns beside rejax's DQN's at the same network and budget.

Both sides are `minatar_dqn_speed.py`'s: the same network (MinAtar's 3x3 convolution of 16 channels, then 128 ReLU
units), batch, replay, learning start, one gradient step per environment step, hard target copies, Adam's learning
rate, ε schedule, vanilla DQN targets, one environment per seed, keys `split(PRNGKey(0), seeds)`. The environment is
gymnax's Breakout with six actions and no sticky actions on both sides (rejax runs gymnax 0.0.9's `MinBreakout`; ours
is `MinAtar('breakout', sticky_action_prob=0.0)`, frame-equal to MinAtar's own game, notebook `65_minatar`), episodes
ending at 1,000 steps. Every `steps / evals` steps each side plays `--eval-episodes` greedy episodes: ours
`Experiment(eval_every=...)`, rejax's own `evaluate` (`oracles/rejax/dqn_returns.py`). Compared: each seed's mean
greedy return at the last evaluation and over all evaluations (the area under the curve), the difference of the
sides' means with a Welch 95% interval and p-value (scipy). A few seeds at a reduced budget: it can show a gross
difference, not equivalence. Results go to `results/minatar_dqn_parity/result.json` and `curves.png`.

    python benchmarks/minatar_dqn_parity.py [--steps 80000] [--seeds 4] [--evals 8] [--eval-episodes 32]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from bsuite_speed import cpu_kind
from minatar_dqn_speed import SHARED, add_shared_arguments, load, our_config, provenance, run_rejax, shared_flags
from uncertain_rl.envs.minatar import MinAtar
from uncertain_rl.experiments import Experiment, run, split_keys

HERE = Path(__file__).resolve().parent
REJAX_SCRIPT = HERE / 'oracles' / 'rejax' / 'dqn_returns.py'
OUT = HERE / 'results' / 'minatar_dqn_parity'


def ours(args) -> dict:
    "Our DQN's greedy returns at each evaluation, per seed."
    env = MinAtar('breakout', sticky_action_prob=0.0)
    t = time.perf_counter()
    res = run(
        Experiment(
            our_config(args),
            env,
            steps=args.steps,
            seeds=args.seeds,
            keys=split_keys(args.seeds),
            eval_every=args.steps // args.evals,
            eval_episodes=args.eval_episodes,
            snapshots=0,
            num_chunks=args.evals,
            devices=1,
        )
    )
    steps, returns = np.asarray(res.evals['step']), np.asarray(res.evals['greedy_return'])  # [seeds, evaluations]
    made = steps[0] > 0  # evaluations that happened (the arrays have a row per planned one)
    return dict(
        eval_steps=[int(s) for s in steps[0][made]],
        greedy_return=[[float(x) for x in row[made]] for row in returns],
        episodes=[int(e) for e in res.episodes],
        seconds=time.perf_counter() - t,
    )


def rejax(args) -> dict:
    "rejax's run, from its own venv."
    cmd = [args.rejax_python, str(REJAX_SCRIPT), '--steps', str(args.steps), '--seeds', str(args.seeds)]
    cmd += ['--evals', str(args.evals), '--eval-episodes', str(args.eval_episodes), *shared_flags(args)]
    t = time.perf_counter()
    return dict(run_rejax(cmd), seconds=time.perf_counter() - t)


def welch(a, b) -> dict:
    "Mean of `a` minus mean of `b`, its Welch 95% interval and two-sided p-value."
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = stats.ttest_ind(a, b, equal_var=False)
    ci = t.confidence_interval(0.95)
    return dict(ours=a.mean(), rejax=b.mean(), difference=a.mean() - b.mean(), ci95=[ci.low, ci.high], p=t.pvalue)


def plot(result: dict, path: Path):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.4))
    for side, colour in (('ours', 'C0'), ('rejax', 'C1')):
        r = result[side]
        x, y = np.asarray(r['eval_steps']), np.asarray(r['greedy_return'])
        for row in y:
            ax.plot(x, row, color=colour, alpha=0.25, lw=0.8)
        ax.plot(x, y.mean(0), color=colour, lw=2, label=f"{side} (mean of {len(y)} seeds)")
    ax.set_xlabel('environment steps')
    ax.set_ylabel(f"greedy return ({result['eval_episodes']} episodes)")
    ax.set_title(f"DQN on MinAtar Breakout (no sticky actions), {result['cpu']}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=80_000, help='environment steps per seed (both sides)')
    ap.add_argument('--seeds', type=int, default=4)
    ap.add_argument('--evals', type=int, default=8, help='evaluations, one every steps / evals steps')
    ap.add_argument('--eval-episodes', type=int, default=32)
    add_shared_arguments(ap)
    ap.add_argument('--out', type=Path, default=OUT)
    args = ap.parse_args()
    if args.steps % args.evals:
        sys.exit(f'--evals must divide --steps, got {args.evals} and {args.steps}')
    if not Path(args.rejax_python).exists():
        sys.exit(f"{args.rejax_python} not found: run `bash benchmarks/oracles/rejax/setup.sh` first")
    cpu, before = cpu_kind(), load()
    print(f'MinAtar Breakout, DQN, {args.steps:,} steps x {args.seeds} seeds per side; {cpu}', flush=True)
    mine = ours(args)
    print(f"ours: {mine['seconds']:.0f} s, last greedy returns {mine['greedy_return']}", flush=True)
    theirs = rejax(args)
    print(f"rejax: {theirs['seconds']:.0f} s, last greedy returns {theirs['greedy_return']}", flush=True)
    last = lambda r: [row[-1] for row in r['greedy_return']]
    area = lambda r: [float(np.mean(row)) for row in r['greedy_return']]
    result = dict(
        **provenance('minatar_dqn_parity', cpu, before, theirs['versions']),
        steps=args.steps,
        seeds=args.seeds,
        eval_episodes=args.eval_episodes,
        shared={k: getattr(args, k) for k in SHARED},
        rejax_settings=theirs['settings'],
        ours=mine,
        rejax={k: theirs[k] for k in ('eval_steps', 'greedy_return', 'env_steps', 'seconds')},
        last_evaluation=welch(last(mine), last(theirs)),
        mean_over_evaluations=welch(area(mine), area(theirs)),
    )
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = args.out / 'result.json.tmp'
    tmp.write_text(json.dumps(result, indent=1, default=float))
    tmp.replace(args.out / 'result.json')  # the results on disk before the figure
    plot(result, args.out / 'curves.png')
    for k in ('last_evaluation', 'mean_over_evaluations'):
        w = result[k]
        print(
            f"{k}: ours {w['ours']:.2f}, rejax {w['rejax']:.2f}, difference {w['difference']:+.2f} "
            f"[{w['ci95'][0]:+.2f}, {w['ci95'][1]:+.2f}], Welch p = {w['p']:.3f}"
        )


if __name__ == '__main__':
    main()
