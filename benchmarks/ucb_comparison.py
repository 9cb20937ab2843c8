"""The paper's agents (Chen et al. 2017, "UCB Exploration via Q-Ensembles") on the chain MDP and Deep Sea, a CPU-sized
stand-in for its Atari comparison (Section 5, Table 2): fraction of seeds solved and episodes to solve against
problem size, one line per agent.

    python benchmarks/ucb_comparison.py --chain-sizes 10 20 30 --deep-sea-sizes 10 15 20 --seeds 5

Per environment and size, `compare_agents` trains all K = 10 agents (Bootstrapped DQN, Ensemble Voting, UCB with
lambda in {0, 0.1, 1}, UCB + InfoGain) x seeds as one compiled, vmapped run, and Double DQN (K = 1) as a second,
each for the whole episode budget. Solved: chain, the first of 100 consecutive episodes that reach s_N
(`chain_solved_at`); Deep Sea, bsuite's rule (`solved_at`: fewer than 90% bad episodes so far). Unsolved runs count
at the episode budget in the median. Also recorded: the first successful episode (chain: reached s_N; Deep Sea:
found the treasure) and the fraction of the last 100 episodes that succeed. `--no-epsilon` turns epsilon-greedy
off for every agent (the paper is ambiguous: Algorithms 1-3 never mention epsilon, but Table 1 lists its schedule
among the hyperparameters common to all algorithms; report both). Writes `results.csv`, `summary.md` and
`ucb_comparison.png` to `--out`.
"""

import argparse
import json
import os
import platform
import time

import jax
import numpy as np

from uncertain_rl.envs.chain import Chain
from uncertain_rl.envs.deep_sea import make_deep_sea
from uncertain_rl.metrics import chain_solved_at, solved_at
from uncertain_rl.agents.ucb import COMPARISON_AGENTS, compare_agents


def deep_sea_solved(logs):
    "bsuite's solved-at episode; episodes not run yet never count."
    bad = np.where(np.isnan(logs['episode_return']), np.iinfo(np.int32).max, logs['total_bad_episodes'])
    return solved_at(bad)


def chain_solved(logs):
    return chain_solved_at(logs['episode_return'])


def successes(env_name, logs):
    "Per seed and episode, whether the episode succeeded: reached s_N (chain) or found the treasure (Deep Sea)."
    if env_name == 'chain':
        return logs['episode_return'] >= 1
    found = np.nan_to_num(logs['denoised_return'])
    return np.diff(found, axis=-1, prepend=0.0) > 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--chain-sizes', type=int, nargs='*', default=[10, 20, 30])
    p.add_argument('--deep-sea-sizes', type=int, nargs='*', default=[10, 15, 20])
    p.add_argument('--seeds', type=int, default=5)
    p.add_argument('--chain-episodes', type=int, default=1000)
    p.add_argument('--deep-sea-episodes', type=int, default=1000)
    p.add_argument('--batch-size', type=int, default=32)
    p.add_argument('--epsilon-decay-steps', type=int, default=1000)
    p.add_argument('--no-epsilon', action='store_true', help='epsilon-greedy off for every agent')
    p.add_argument('--out', default='benchmarks/results/ucb_comparison')
    p.add_argument('--figure', default=None, help='also copy the figure here (e.g. nbs/figures/ucb_comparison.png)')
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    config = dict(batch_size=args.batch_size, epsilon_decay_steps=args.epsilon_decay_steps)
    if args.no_epsilon:
        config.update(epsilon_start=0.0, epsilon=0.0)
    labels = [a[0] for a in COMPARISON_AGENTS]
    rows, t0 = [], time.time()
    jobs = [('chain', n, args.chain_episodes) for n in args.chain_sizes]
    jobs += [('deep_sea', n, args.deep_sea_episodes) for n in args.deep_sea_sizes]
    for env_name, size, episodes in jobs:
        t = time.time()
        if env_name == 'chain':
            env = Chain(size)
            solved, logs = compare_agents(env, env.horizon, episodes, args.seeds, chain_solved, progress=True, **config)
        else:
            env = make_deep_sea(size, mapping_seed=42)
            solved, logs = compare_agents(env, size, episodes, args.seeds, deep_sea_solved, progress=True, **config)
        print(f'{env_name} {size}: {time.time() - t:.0f} s', flush=True)
        for label in labels:
            ran = np.isfinite(logs[label]['episode_return']).sum(-1)
            ok = successes(env_name, logs[label])
            first = np.where(ok.any(-1), ok.argmax(-1) + 1, 0)
            last100 = ok[:, -100:].mean(-1)
            for seed in range(args.seeds):
                rows.append(
                    dict(
                        env=env_name,
                        size=size,
                        agent=label,
                        seed=seed,
                        solved_at=int(solved[label][seed]),
                        first_success=int(first[seed]),
                        last100_success=round(float(last100[seed]), 2),
                        episodes_run=int(ran[seed]),
                        budget=episodes,
                    )
                )
            print(
                f'  {label:<18} solved at {solved[label].tolist()}  first success {first.tolist()}  '
                f'last-100 success {np.round(last100, 2).tolist()}',
                flush=True,
            )
    with open(os.path.join(args.out, 'results.csv'), 'w') as f:
        keys = list(rows[0])
        f.write(','.join(keys) + '\n' + ''.join(','.join(str(r[k]) for k in keys) + '\n' for r in rows))

    def stats(env_name, size, label):
        s = np.array([r['solved_at'] for r in rows if (r['env'], r['size'], r['agent']) == (env_name, size, label)])
        budget = next(r['budget'] for r in rows if (r['env'], r['size']) == (env_name, size))
        return (s > 0).mean(), np.median(np.where(s > 0, s, budget)), s

    table = []
    for env_name, sizes in (('chain', args.chain_sizes), ('deep_sea', args.deep_sea_sizes)):
        if not sizes:
            continue
        table += [
            f'\n**{env_name}**: fraction of seeds solved, median episodes to solve (unsolved at the budget)\n',
            '| agent | ' + ' | '.join(f'N = {n}' for n in sizes) + ' |',
            '|---|' + '---:|' * len(sizes),
        ]
        for label in labels:
            cells = []
            for n in sizes:
                frac, med, _ = stats(env_name, n, label)
                cells.append(f'{frac:.1f}, {med:.0f}')
            table.append(f'| {label} | ' + ' | '.join(cells) + ' |')
        table += [
            f'\n**{env_name}**: median first successful episode (0: never), mean success rate over the last 100 '
            'episodes\n',
            '| agent | ' + ' | '.join(f'N = {n}' for n in sizes) + ' |',
            '|---|' + '---:|' * len(sizes),
        ]
        for label in labels:
            cells = []
            for n in sizes:
                rs = [r for r in rows if (r['env'], r['size'], r['agent']) == (env_name, n, label)]
                cells.append(
                    f"{np.median([r['first_success'] for r in rs]):.0f}, "
                    f"{np.mean([r['last100_success'] for r in rs]):.2f}"
                )
            table.append(f'| {label} | ' + ' | '.join(cells) + ' |')
    meta = dict(
        vars(args),
        seconds=round(time.time() - t0),
        jax=jax.__version__,
        device=str(jax.devices()[0]),
        machine=platform.machine(),
        cpus=os.cpu_count(),
    )
    with open(os.path.join(args.out, 'summary.md'), 'w') as f:
        f.write('\n'.join(table) + '\n\n```\n' + json.dumps(meta, indent=1) + '\n```\n')
    print('\n'.join(table))

    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    envs = [(e, s) for e, s in (('chain', args.chain_sizes), ('deep_sea', args.deep_sea_sizes)) if s]
    fig, axes = plt.subplots(2, len(envs), figsize=(5 * len(envs), 6.5), squeeze=False)
    for j, (env_name, sizes) in enumerate(envs):
        for i, label in enumerate(labels):
            st = [stats(env_name, n, label) for n in sizes]
            style = dict(marker='os^v<>D'[i % 7], label=label, alpha=0.85)
            jitter = (i - 3) * 0.12 * (sizes[-1] - sizes[0] + 1) / 10
            axes[0, j].plot(np.array(sizes) + jitter, [x[0] for x in st], **style)
            axes[1, j].plot(np.array(sizes) + jitter, [x[1] for x in st], **style)
        name = 'chain MDP' if env_name == 'chain' else 'Deep Sea'
        axes[0, j].set_title(f'{name}, {args.seeds} seeds' + (', no ε-greedy' if args.no_epsilon else ''))
        axes[0, j].set_ylabel('fraction of seeds solved')
        axes[0, j].set_ylim(-0.05, 1.05)
        axes[1, j].set_ylabel('episodes to solve (median)')
        axes[1, j].set_xlabel('size N')
    axes[0, -1].legend(fontsize=7, loc='lower left')
    fig.tight_layout()
    path = os.path.join(args.out, 'ucb_comparison.png')
    fig.savefig(path, dpi=220)
    if args.figure:
        fig.savefig(args.figure, dpi=220)
    print(f'wrote {args.out}/results.csv, summary.md, ucb_comparison.png in {time.time() - t0:.0f} s')


if __name__ == '__main__':
    main()
