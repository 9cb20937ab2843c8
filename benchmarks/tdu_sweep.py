"""TDU's beta x lambda sweep on Deep Sea (the paper's Figure 2, small scale). For each (size, variant) one compiled,
vmapped call trains every (beta, lambda, seed); beta = 0 is Bootstrapped DQN with 20 heads.

    python benchmarks/tdu_sweep.py --sizes 16 --seeds 3 --episodes 350             # 2-core CPU, 19 min
    python benchmarks/tdu_sweep.py --sizes 30 40 50 --seeds 5 --episodes 10000     # the paper's regime, GPU

Solved = bsuite's rule (first episode with bad fraction < 0.9, or < 0.8 from episode 100 on when stochastic) before
2^size + 100 episodes. Writes `results.csv`, `summary.md` and `tdu_sweep.png` to `--out`.
"""

import argparse
import json
import os
import platform
import time

import jax
import numpy as np

from uncertain_rl.metrics import beats_dithering
from uncertain_rl.agents.tdu import deep_sea_sweep


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sizes', type=int, nargs='+', default=[16])
    p.add_argument(
        '--variants', nargs='+', default=['deterministic', 'stochastic'], choices=['deterministic', 'stochastic']
    )
    p.add_argument('--betas', type=float, nargs='+', default=[0.0, 0.01, 0.1, 1.0, 3.0])
    p.add_argument('--lambdas', type=float, nargs='+', default=[0.0, 3.0])
    p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--episodes', type=int, default=350)
    p.add_argument('--out', default='benchmarks/results/tdu_sweep')
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rows, t0 = [], time.time()
    for size in args.sizes:
        for variant in args.variants:
            solved, res = deep_sea_sweep(
                size, variant, args.betas, args.lambdas, args.seeds, args.episodes, progress=True
            )
            ok = beats_dithering(solved, size)
            print(
                f'size {size} {variant}: compile {res.compile_seconds:.0f} s, run {res.run_seconds:.0f} s', flush=True
            )
            for i, beta in enumerate(args.betas):
                for j, lam in enumerate(args.lambdas):
                    print(f'  beta {beta:<5} lambda {lam:<4}: solved at {solved[i, j].tolist()}', flush=True)
                    rows += [
                        dict(
                            size=size,
                            variant=variant,
                            beta=beta,
                            prior_scale=lam,
                            seed=s,
                            solved_at=int(solved[i, j, s]),
                            solved=bool(ok[i, j, s]),
                        )
                        for s in range(args.seeds)
                    ]
    with open(os.path.join(args.out, 'results.csv'), 'w') as f:
        f.write('size,variant,beta,prior_scale,seed,solved_at,solved\n')
        f.writelines(
            f"{r['size']},{r['variant']},{r['beta']},{r['prior_scale']},{r['seed']},{r['solved_at']},"
            f"{int(r['solved'])}\n"
            for r in rows
        )

    def cell(size, variant, beta, lam):
        s = [r for r in rows if (r['size'], r['variant'], r['beta'], r['prior_scale']) == (size, variant, beta, lam)]
        eps = np.array([r['solved_at'] if r['solved'] else args.episodes for r in s])
        return np.mean([r['solved'] for r in s]), np.median(eps)

    lines = [
        '| size | variant | λ | ' + ' | '.join(f'β = {b}' for b in args.betas) + ' |',
        '|---|---|---|' + '---:|' * len(args.betas),
    ]
    for size in args.sizes:
        for variant in args.variants:
            for lam in args.lambdas:
                cells = [cell(size, variant, b, lam) for b in args.betas]
                lines.append(
                    f'| {size} | {variant} | {lam} | ' + ' | '.join(f'{f:.0%}, {m:.0f}' for f, m in cells) + ' |'
                )
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
            'Fraction of seeds solved, median episodes to solve (unsolved count at the budget)\n\n'
            + '\n'.join(lines)
            + '\n\n```\n'
            + json.dumps(meta, indent=1)
            + '\n```\n'
        )
    print('\n'.join(lines))

    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(args.variants), figsize=(4.5 * len(args.variants), 6), squeeze=False)
    x = np.arange(len(args.betas))
    for c, variant in enumerate(args.variants):
        for size, style in zip(args.sizes, ['-', '--', ':', '-.'] * 4):
            for lam, color in zip(args.lambdas, ['tab:red', 'tab:blue', 'tab:green', 'tab:purple'] * 4):
                vals = np.array([cell(size, variant, b, lam) for b in args.betas])
                for r in range(2):
                    axes[r, c].plot(x, vals[:, r], style, color=color, marker='o', label=f'size {size}, λ = {lam}')
        axes[0, c].set_title(f'Deep Sea, {variant}')
        axes[0, c].set_ylim(-0.05, 1.05)
        axes[0, c].set_ylabel('fraction of seeds solved')
        axes[1, c].set_ylabel('episodes to solve (median)')
        for r in range(2):
            axes[r, c].set_xticks(x, [f'{b:g}' for b in args.betas])
            axes[r, c].set_xlabel('β (0 = Bootstrapped DQN)')
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f'TDU β × λ sweep, {args.seeds} seeds, {args.episodes} episodes')
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, 'tdu_sweep.png'), dpi=240)
    print(f"wrote {args.out}/results.csv, summary.md, tdu_sweep.png in {time.time() - t0:.0f} s")


if __name__ == '__main__':
    main()
