"""TDU on the binary tree MDP (the paper's Appendix C and Figure 4, at depths a CPU can afford): episodes to solve
against depth L, one line per beta. One compiled, vmapped call per depth covers every (beta, seed); it stops when
every run has solved.

    python benchmarks/tdu_tree.py --depths 10 30 50 100 --betas 0 0.1 1 --seeds 3

Solved = the last 10 episodes run by an exploiter head all reached the reward (`tree_solved_at`); unsolved runs
count at the episode budget in the median. Writes `results.csv`, `summary.md` and `tdu_tree.png` to `--out`.
"""

import argparse
import json
import os
import platform
import time

import jax
import numpy as np

from uncertain_rl.agents.tdu import tree_experiment


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--depths', type=int, nargs='+', default=[10, 30, 50, 100])
    p.add_argument('--betas', type=float, nargs='+', default=[0.0, 0.1, 1.0])
    p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--episodes', type=int, default=1000, help='episode budget per run (unsolved count at it)')
    p.add_argument('--prior-scale', type=float, default=0.0, help='lambda (the calibration used 0)')
    p.add_argument('--discount', type=float, default=0.99)
    p.add_argument('--out', default='benchmarks/results/tdu_tree')
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rows, t0 = [], time.time()
    for depth in args.depths:
        solved, res = tree_experiment(
            depth, args.betas, args.seeds, args.episodes, args.prior_scale, progress=True, discount=args.discount
        )
        print(f'L = {depth}: compile {res.compile_seconds:.1f} s, run {res.run_seconds:.1f} s', flush=True)
        for b, beta in enumerate(args.betas):
            for seed in range(args.seeds):
                rows.append(dict(depth=depth, beta=beta, seed=seed, solved_at=int(solved[b, seed])))
            eps = np.where(solved[b] > 0, solved[b], args.episodes)
            print(
                f'  beta = {beta:<5}: solved at {solved[b].tolist()} (0 = not within {args.episodes}); '
                f'median {np.median(eps):.0f}',
                flush=True,
            )
    with open(os.path.join(args.out, 'results.csv'), 'w') as f:
        f.write(
            'depth,beta,seed,solved_at\n'
            + ''.join(f"{r['depth']},{r['beta']},{r['seed']},{r['solved_at']}\n" for r in rows)
        )
    table = ['| L | ' + ' | '.join(f'β = {b}' for b in args.betas) + ' |', '|---|' + '---:|' * len(args.betas)]
    for depth in args.depths:
        cells = []
        for beta in args.betas:
            s = np.array([r['solved_at'] for r in rows if r['depth'] == depth and r['beta'] == beta])
            cells.append(f"{np.median(np.where(s > 0, s, args.episodes)):.0f} ({', '.join(map(str, s))})")
        table.append(f'| {depth} | ' + ' | '.join(cells) + ' |')
    meta = dict(
        vars(args),
        seconds=round(time.time() - t0),
        jax=jax.__version__,
        device=str(jax.devices()[0]),
        machine=platform.machine(),
        cpus=os.cpu_count(),
    )
    with open(os.path.join(args.out, 'summary.md'), 'w') as f:
        f.write(
            'Median episodes to solve (per-seed values; 0 = not solved within the budget)\n\n'
            + '\n'.join(table)
            + '\n\n```\n'
            + json.dumps(meta, indent=1)
            + '\n```\n'
        )
    print('\n'.join(table))
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for beta in args.betas:
        s = np.array([[r['solved_at'] for r in rows if r['depth'] == d and r['beta'] == beta] for d in args.depths])
        s = np.where(s > 0, s, args.episodes)
        ax.plot(args.depths, np.median(s, 1), 'o-', label=f'β = {beta}')
        ax.fill_between(args.depths, s.min(1), s.max(1), alpha=0.15)
    ax.set_xlabel('tree depth L')
    ax.set_ylabel('episodes to solve (median, range)')
    ax.set_title(f'TDU on the binary tree, λ = {args.prior_scale}, {args.seeds} seeds')
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, 'tdu_tree.png'), dpi=240)
    print(f"wrote {args.out}/results.csv, summary.md, tdu_tree.png in {time.time() - t0:.0f} s")


if __name__ == '__main__':
    main()
