"""PE-DQN on Deep Sea (R4, R5 of the PE-DQN notebook): PE-DQN, β = 0, its ablations and Bootstrapped DQN.

Every agent runs on the same maps (mapping seed 42) and seeds. Each (agent, size) is one `experiments.sweep` (one
compiled `run` with the seeds, keys `split(PRNGKey(0), seeds)`, and the swept values vmapped; no evaluations or
snapshots; PE-DQN's β decays over a third of bsuite's 10,000 episodes, whatever `--episodes` is), stopped once every
run has solved. "Solved" is bsuite's rule (the fraction of bad episodes falls below 0.9); "beats dithering" is
bsuite's criterion (solved before episode 2^N + 100).

    python benchmarks/pe_dqn_deep_sea.py --sizes 8 10 12 14 --seeds 5 --episodes 2000          # the issue's R4
    python benchmarks/pe_dqn_deep_sea.py --sizes 12 14 --agents ind c51c51 qrqr --seeds 5       # R5, the ablations

Writes `table.md`, `results.json` and `pe_dqn_deep_sea.png` under `--out` (and the figure to nbs/figures).
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from uncertain_rl.agents.boot_dqn import BootDQNConfig
from uncertain_rl.agents.pe_dqn import PEDQNConfig
from uncertain_rl.experiments import Experiment, split_keys, sweep
from uncertain_rl.metrics import sweep_solved_at, beats_dithering, first_treasure_episode

# label -> (config factory, swept settings)
AGENTS = {
    'pe_dqn': (PEDQNConfig, {'beta': [5.0]}),
    'beta0': (PEDQNConfig, {'beta': [0.0], 'beta_final': [0.0]}),
    'ind': (lambda: PEDQNConfig(ablation='ind'), {'beta': [5.0]}),
    'c51c51': (lambda: PEDQNConfig(ablation='c51c51'), {'beta': [5.0]}),
    'qrqr': (lambda: PEDQNConfig(ablation='qrqr'), {'beta': [5.0]}),
    'boot_dqn': (BootDQNConfig, {'prior_scale': [5.0]}),
}
LABELS = {
    'pe_dqn': 'PE-DQN (β 5 → 1)',
    'beta0': 'PE-DQN, β = 0',
    'ind': 'PE-DQN [Ind.]',
    'c51c51': 'PE-DQN [C51/C51]',
    'qrqr': 'PE-DQN [QR/QR]',
    'boot_dqn': 'Bootstrapped DQN (bsuite)',
}


def run(agent: str, size: int, seeds: int, episodes: int) -> dict:
    config, settings = AGENTS[agent]
    start = time.perf_counter()
    exp = Experiment(
        config(),
        'deep_sea',
        episodes=episodes,
        size=size,
        seeds=seeds,
        keys=split_keys(seeds),
        grid=settings,
        eval_every=0,
        snapshots=0,
        num_chunks=25,
    )
    done, res = sweep(exp, sweep_solved_at)
    first = first_treasure_episode(np.nan_to_num(res.logs['denoised_return']))
    return dict(
        solved_at=done.reshape(-1).tolist(),
        first_treasure=first.tolist(),
        episodes_run=np.asarray(res.episodes).tolist(),
        seconds=time.perf_counter() - start,
    )


def cell(r: dict, size: int) -> str:
    s = np.asarray(r['solved_at'])
    ok = s[s > 0]
    med = f"{int(np.median(ok))}" if len(ok) else '-'
    return f"{len(ok)}/{len(s)}, {med}, {int(beats_dithering(s, size).sum())}/{len(s)}"


def plot(results: dict, sizes: list, paths: list) -> None:
    "Median solved-at episode (unsolved runs count as the budget) against N, one line per agent, and dithering's."
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    singles = [a for a, rows in results.items() if len(rows) == 1]  # one size only: spread them apart
    for k, (agent, rows) in enumerate(results.items()):
        ns = sorted(int(n) for n in rows)
        med = [
            np.median(
                np.where(np.asarray(rows[str(n)]['solved_at']) > 0, rows[str(n)]['solved_at'], rows[str(n)]['budget'])
            )
            for n in ns
        ]
        shift = 0.18 * (singles.index(agent) - (len(singles) - 1) / 2) if agent in singles else 0.0
        ax.plot(np.asarray(ns) + shift, med, marker='osD^vP'[k % 6], label=LABELS[agent])
    ax.plot(sizes, [2.0**n + 100 for n in sizes], 'k:', label='dithering (2^N + 100)')
    ax.set_yscale('log')
    ax.set_xlabel('Deep Sea size N')
    ax.set_ylabel('median solved-at episode\n(unsolved = budget)')
    ax.legend(fontsize=7)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=160)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sizes', type=int, nargs='+', default=[8, 10, 12, 14])
    ap.add_argument('--agents', nargs='+', default=list(AGENTS), choices=list(AGENTS))
    ap.add_argument('--seeds', type=int, default=5)
    ap.add_argument('--episodes', type=int, default=2000)
    ap.add_argument('--out', default='benchmarks/results/pe_dqn_deep_sea')
    ap.add_argument('--figure', default='nbs/figures/pe_dqn_deep_sea.png')
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / 'results.json'
    results = json.loads(path.read_text()) if path.exists() else {}
    for agent in args.agents:
        for size in args.sizes:
            r = run(agent, size, args.seeds, args.episodes)
            results.setdefault(agent, {})[str(size)] = dict(r, seeds=args.seeds, budget=args.episodes)
            print(
                f"{LABELS[agent]:<28} N={size:<3} solved, median solved-at, beats dithering: {cell(r, size)};"
                f" first treasure {r['first_treasure']}; {r['seconds']:.0f} s",
                flush=True,
            )
            tmp = path.with_suffix('.tmp')
            tmp.write_text(json.dumps(results, indent=1))
            tmp.replace(path)
    sizes = sorted({int(n) for r in results.values() for n in r})
    lines = ['| agent | ' + ' | '.join(f'N = {n}' for n in sizes) + ' |', '|---|' + '---:|' * len(sizes)]
    for agent, rows in results.items():
        lines.append(
            f'| {LABELS[agent]} | ' + ' | '.join(cell(rows[str(n)], n) if str(n) in rows else '' for n in sizes) + ' |'
        )
    table = '\n'.join(lines)
    (out / 'table.md').write_text(
        table + '\n\nEach cell: seeds solved (bsuite\'s rule), median solved-at episode '
        'of the solved seeds, seeds that beat dithering (solved before 2^N + 100).\n'
    )
    print(table)
    plot(results, sizes, [out / 'pe_dqn_deep_sea.png', Path(args.figure)])


if __name__ == '__main__':
    main()
