"""UCB's Deep Sea preset: λ chosen on held-out seeds, then measured against the paper's λ = 0.1 on the tables' seeds.

UCB with the command line's defaults (the registry's `ucb`: 10 heads, batch 32, ε from 1 to 0.01, the paper's
λ = 0.1) on Deep Sea 10 (map 42), 500 episodes, every λ of `LAMBDAS` and every seed in one compiled, vmapped run.

* **select**: seeds 1000-1009 (keys `PRNGKey(seed)`). The rule, declared before the run: the λ under which most
  seeds reach the treasure; ties go to the smaller median first-treasure episode (never = the budget), then to the
  smaller λ.
* **test**: seeds 0-9 (keys `PRNGKey(seed)`): the chosen λ against λ = 0.1, Fisher's exact test on the seeds that
  found the treasure and on the seeds solved (bsuite's rule), Mann-Whitney on the first-treasure episodes.

    python benchmarks/ucb_deep_sea_preset.py            # writes benchmarks/results/ucb_deep_sea_preset.json and prints
"""

import argparse
import json
import os
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
LAMBDAS = [0.1, 0.3, 1.0, 3.0]
HELD_OUT, TEST = list(range(1000, 1010)), list(range(10))


def measure(seeds: list, lambdas: list, episodes: int, size: int) -> dict:
    "First-treasure and solved-at episodes `[lambdas, seeds]` (0: never) of UCB on Deep Sea `size`."
    from uncertain_rl.registry import agent_config
    from uncertain_rl.experiments import Experiment, run
    from uncertain_rl.metrics import first_treasure_episode, sweep_solved_at

    exp = Experiment(
        agent_config('ucb'),
        'deep_sea',
        episodes=episodes,
        size=size,
        seeds=seeds,
        grid={'ucb_lambda': lambdas},
        eval_every=0,
        snapshots=0,
        num_chunks=10,
    )
    res = run(exp)
    first = first_treasure_episode(np.nan_to_num(res.logs['denoised_return'])).reshape(len(lambdas), len(seeds))
    solved = np.asarray(sweep_solved_at(res.logs)).reshape(len(lambdas), len(seeds))
    return dict(
        seeds=seeds,
        lambdas=lambdas,
        first_treasure=first.tolist(),
        solved_at=solved.tolist(),
        seconds=res.compile_seconds + res.run_seconds,
    )


def choose(select: dict, budget: int) -> float:
    "The declared rule: most seeds that found the treasure, then the smaller median first treasure, then the smaller λ."
    first = np.asarray(select['first_treasure'])
    key = lambda i: (-(first[i] > 0).sum(), np.median(np.where(first[i] > 0, first[i], budget)), select['lambdas'][i])
    return select['lambdas'][min(range(len(first)), key=key)]


def report(r: dict) -> str:
    from scipy.stats import fisher_exact, mannwhitneyu

    budget = r['episodes']
    rows = [
        f"UCB on Deep Sea {r['size']}, {budget} episodes",
        '',
        '| seeds | λ | found the treasure | first treasure (median) | solved (bsuite) |',
        '|---|---|---|---|---|',
    ]
    for part in ('select', 'test'):
        d = r[part]
        for lam, first, solved in zip(d['lambdas'], d['first_treasure'], d['solved_at']):
            first, solved = np.asarray(first), np.asarray(solved)
            med = f'{np.median(first[first > 0]):.0f}' if (first > 0).any() else '-'
            rows.append(
                f"| {d['seeds'][0]}-{d['seeds'][-1]} | {lam:g} | {(first > 0).sum()}/{len(first)} | {med} | "
                f"{(solved > 0).sum()}/{len(solved)} |"
            )
    t = r['test']
    (f0, s0), (f1, s1) = [(np.asarray(t['first_treasure'][i]), np.asarray(t['solved_at'][i])) for i in range(2)]
    count = lambda x: [(x > 0).sum(), (x == 0).sum()]
    rows += [
        '',
        f"chosen on seeds {HELD_OUT[0]}-{HELD_OUT[-1]}: λ = {r['chosen']:g}",
        f"test seeds, λ = {r['chosen']:g} against 0.1: "
        f"Fisher p (found) = {fisher_exact([count(f1), count(f0)])[1]:.3g}, "
        f"Fisher p (solved) = {fisher_exact([count(s1), count(s0)])[1]:.3g}, Mann-Whitney p (first treasure, "
        f"never = budget + 1) = "
        f"{mannwhitneyu(np.where(f1 > 0, f1, budget + 1), np.where(f0 > 0, f0, budget + 1)).pvalue:.3g}",
    ]
    return '\n'.join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=500)
    ap.add_argument('--size', type=int, default=10)
    ap.add_argument('--out', default=str(ROOT / 'results' / 'ucb_deep_sea_preset.json'))
    ap.add_argument('--report', action='store_true', help='only print the stored results')
    args = ap.parse_args()
    out = Path(args.out)
    if not args.report:
        select = measure(HELD_OUT, LAMBDAS, args.episodes, args.size)
        r = dict(size=args.size, episodes=args.episodes, select=select)
        r['chosen'] = choose(select, args.episodes)
        r['test'] = measure(TEST, [0.1, r['chosen']], args.episodes, args.size)
        tmp = out.with_suffix('.tmp')
        tmp.write_text(json.dumps(r))
        os.replace(tmp, out)
    print(report(json.loads(out.read_text())))


if __name__ == '__main__':
    main()
