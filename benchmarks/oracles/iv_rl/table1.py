"""Table 1 of Mai, Mani & Paull (ICLR 2022) from bsuite CSV logs (theirs or ours) or our benchmark's JSON.

Per run: the first episode at which the mean of the last 100 episode returns reaches the solved score (750 on
Cartpole-Noise); then the 25th, 50th and 75th percentiles of that episode over the runs of each group, unsolved runs
counting as beyond their last episode ("cens."). Pure standard library: runs in any python 3.9+.

Inputs: bsuite CSV files or folders searched for `bsuite_id_-_*.csv`. A group is the folder of a CSV (their
`runs/cartpole_noise/<agent>_bs_.._lossatt_..`, our oracle's `seed_<s>/cartpole_noise/<agent>...`, whose training
episodes are in its `train/` sub-folder), the seed folders merged; `--json` reads our benchmark's results file
(benchmarks/iv_dqn_cartpole.py: one group per variant, one run per seed).

bsuite's own CSV logger writes only on a logarithmic grid of episodes (1-10, 12, 14, 17, 20, 25, 30, 40, ...). From
its cumulative `total_return` the 100-episode mean is exact only where episode N - 100 is also logged (or N <= 100),
so for such logs a run's first solved episode is an upper bound, marked "<=" (our oracle's runner logs every episode).

    python table1.py RUNS_DIR [...] [--threshold 750] [--window 100] [--full-window] [--column episode_return|raw]
    python table1.py --json benchmarks/results/iv_dqn_cartpole_10_seeds.json
"""

import argparse
import csv
import itertools
import json
import math
import random
import re
from collections import defaultdict
from pathlib import Path


def read_csv(path: Path) -> tuple:
    "(logged episodes, cumulative return at each) from a bsuite CSV, for the chosen cumulative column."
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    return rows


def cumulative(rows: list, column: str) -> tuple:
    eps = [int(float(r['episode'])) for r in rows]
    if column == 'raw':  # bsuite's cartpole logs raw_return, the cumulative noiseless return
        cum = [float(r['raw_return']) for r in rows]
    else:  # total_return: the cumulative sum of episode_return
        cum = [float(r['total_return']) for r in rows]
    return eps, cum


def solved_from_cumulative(eps: list, cum: list, threshold: float, window: int, full_window: bool) -> dict:
    """First episode whose `window`-episode mean return reaches `threshold`, from cumulative returns at logged
    episodes. Exact when every episode is logged; otherwise the first checkable episode (an upper bound)."""
    at = dict(zip(eps, cum))
    at[0] = 0.0
    every = eps == list(range(1, len(eps) + 1))
    best = -math.inf
    for n in eps:
        start = n - window
        if start < 0:
            if full_window:
                continue
            start = 0  # fewer at the start (our metrics.moving_average_solved_at)
        if start not in at:
            continue
        mean = (at[n] - at[start]) / (n - start)
        best = max(best, mean)
        if mean >= threshold:
            return dict(solved=n, exact=every, last=eps[-1], best=best)
    return dict(solved=None, exact=every, last=eps[-1] if eps else 0, best=best)


def solved_from_returns(returns: list, threshold: float, window: int, full_window: bool) -> dict:
    r = [x for x in returns if x is not None]
    cum, c = [], 0.0
    for x in r:
        c += x
        cum.append(c)
    return solved_from_cumulative(list(range(1, len(r) + 1)), cum, threshold, window, full_window)


def percentile_nearest(values: list, q: float) -> float:
    "Nearest rank on the sorted values (inf for unsolved), as benchmarks/iv_dqn_cartpole.py's `percentiles`."
    x = sorted(values)
    return x[int(round(q / 100 * (len(x) - 1)))]


def percentile_linear(values: list, q: float) -> float:
    "Linear interpolation between ranks (numpy's default); inf where it touches an unsolved run."
    x = sorted(values)
    pos = q / 100 * (len(x) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    if math.isinf(x[hi]) or math.isinf(x[lo]):
        return math.inf
    return x[lo] + (x[hi] - x[lo]) * (pos - lo)


def midranks(values: list) -> list:
    "Ranks 1..n of `values`, ties sharing their mean rank (unsolved runs, inf, tie with each other)."
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mann_whitney(x: list, y: list, max_exact: int = 500_000, resamples: int = 200_000, seed: int = 0) -> dict:
    """Two-sided Mann-Whitney test of x against y (unsolved = inf, ties at midranks): U of x, and the permutation p
    of |U - mean|, exact over every split of the pooled runs when there are at most `max_exact`, else Monte Carlo."""
    pooled, n = list(x) + list(y), len(x)
    ranks = midranks(pooled)
    u = lambda idx: sum(ranks[i] for i in idx) - n * (n + 1) / 2
    mean, observed = n * len(y) / 2, u(range(n))
    extreme = lambda v: abs(v - mean) >= abs(observed - mean) - 1e-9
    if math.comb(len(pooled), n) <= max_exact:
        splits = [u(c) for c in itertools.combinations(range(len(pooled)), n)]
        return dict(u=observed, p=sum(map(extreme, splits)) / len(splits), method='exact')
    rng = random.Random(seed)
    hits = sum(extreme(u(rng.sample(range(len(pooled)), n))) for _ in range(resamples))
    return dict(u=observed, p=(1 + hits) / (1 + resamples), method=f'Monte Carlo ({resamples} resamples)')


def fmt(v: float) -> str:
    return 'cens.' if math.isinf(v) else (f'{v:.0f}' if float(v).is_integer() else f'{v:.1f}')


def group_key(path: Path) -> str:
    "Their `runs/<env>/<agent folder>`; our oracle's `<agent folder>` (+ ' [train]'), the seed folders merged."
    parts = list(path.parent.parts)
    role = ''
    if parts and parts[-1] == 'train':
        role, parts = ' [train]', parts[:-1]
    elif parts and re.match(r'.*_bs_\d+_mask_', parts[-1]) and (path.parent / 'run.json').exists():
        role = ' [test]'
    return parts[-1] + role if parts else str(path)


def finished(csv: Path) -> bool:
    "Whether the oracle's run that wrote `csv` has ended (its run.json is written last)."
    folder = csv.parent.parent if csv.parent.name == 'train' else csv.parent
    return (folder / 'run.json').exists()


def collect_csvs(paths: list, finished_only: bool = False) -> dict:
    groups = defaultdict(list)
    for p in map(Path, paths):
        files = [p] if p.is_file() else sorted(p.rglob('bsuite_id_-_*.csv'))
        for f in files:
            if not finished_only or finished(f):
                groups[group_key(f)].append(f)
    return groups


def solved_values(runs: list) -> list:
    "Each run's solved episode, inf where it never reached the threshold (censored)."
    return [math.inf if r['solved'] is None else r['solved'] for r in runs]


def summarise(name: str, runs: list, labels: list, args) -> str:
    values = solved_values(runs)
    per = []
    for lab, r in zip(labels, runs):
        s = ('<=' if not r['exact'] else '') + str(r['solved']) if r['solved'] else f"cens.(>{r['last']})"
        best = '-' if math.isinf(r['best']) else f"{r['best']:.0f}"
        per.append(f"{lab}: {s} [best MA{args.window} {best}, {r['last']} ep]")
    near = ' - '.join(fmt(percentile_nearest(values, q)) for q in (25, 50, 75))
    lin = ' - '.join(fmt(percentile_linear(values, q)) for q in (25, 50, 75))
    exact = all(r['exact'] for r in runs)
    lines = [
        f"{name}: {len(runs)} run(s), {sum(v != math.inf for v in values)} solved; episodes to MA{args.window} >= "
        f"{args.threshold:g}, 25-50-75th: {near} (nearest rank), {lin} (linear)"
        + ('' if exact else '  [log-spaced logs: upper bounds]')
    ]
    lines += ['    ' + p for p in per]
    return '\n'.join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('paths', nargs='*', help='bsuite CSV files or folders')
    ap.add_argument('--json', nargs='*', default=[], help="our benchmarks/iv_dqn_cartpole.py results JSON")
    ap.add_argument('--threshold', type=float, default=750.0)
    ap.add_argument('--window', type=int, default=100)
    ap.add_argument('--full-window', action='store_true', help='only count episodes with a full window behind them')
    ap.add_argument(
        '--column',
        default='episode_return',
        choices=('episode_return', 'raw'),
        help="episode_return: the noisy returns the agent saw (bsuite's); raw: cartpole's noiseless return",
    )
    ap.add_argument('--max-episodes', type=int, default=None, help='only the first N episodes of each run')
    ap.add_argument(
        '--summary-out',
        default=None,
        metavar='JSON',
        help="also write the groups' percentiles as JSON, with a one-line summary for the Results page",
    )
    ap.add_argument('--finished-only', action='store_true', help="only the oracle's runs that have ended (run.json)")
    ap.add_argument('--claim', default='iv_dqn_cartpole', help='the claim the summary answers (with --summary-out)')
    ap.add_argument('--note', default='', help='what was run, prefixed to the summary line (with --summary-out)')
    ap.add_argument(
        '--compare',
        nargs=2,
        metavar=('A', 'B'),
        default=('IV_DQN', 'BootstrapDQN'),
        help="agents whose groups (per role: train, test) are compared by a two-sided Mann-Whitney test",
    )
    args = ap.parse_args(argv)
    if not args.paths and not args.json:
        ap.error('give CSV paths or --json')
    out, groups = [], {}
    for name, files in sorted(collect_csvs(args.paths, args.finished_only).items()):
        runs, labels = [], []
        for f in files:
            eps, cum = cumulative(read_csv(f), args.column)
            if args.max_episodes:
                keep = [i for i, e in enumerate(eps) if e <= args.max_episodes]
                eps, cum = [eps[i] for i in keep], [cum[i] for i in keep]
            runs.append(solved_from_cumulative(eps, cum, args.threshold, args.window, args.full_window))
            seed = next((p for p in f.parts if p.startswith('seed_')), None)
            labels.append(f"{seed + ' ' if seed else ''}{f.stem.replace('bsuite_id_-_', '')}")
        out.append(summarise(name, runs, labels, args))
        groups[name] = group_json(runs, labels)
    for path in args.json:
        for name, res in json.loads(Path(path).read_text()).items():
            rets = res['returns']
            if args.max_episodes:
                rets = [r[: args.max_episodes] for r in rets]
            runs = [solved_from_returns(r, args.threshold, args.window, args.full_window) for r in rets]
            out.append(summarise(f'{Path(path).name}: {name}', runs, [f'seed {i}' for i in range(len(runs))], args))
    tests = compare_groups(groups, *args.compare)
    out += [f"{k}: U = {t['u']:g}, two-sided p = {t['p']:.3g} ({t['method']})" for k, t in tests.items()]
    print('\n'.join(out))
    if args.summary_out:
        write_summary(Path(args.summary_out), groups, args, tests)


def group_values(group: dict) -> list:
    "A JSON group's solved episodes, inf for a run that did not reach the threshold."
    return [math.inf if r['solved'] is None else r['solved'] for r in group['per_run'].values()]


def compare_groups(groups: dict, a: str, b: str) -> dict:
    "Mann-Whitney of agent a's runs against agent b's, for each role (' [train]', ' [test]', '') both groups have."
    tests = {}
    for ka, ga in sorted(groups.items()):
        if not ka.startswith(a + '_'):
            continue
        role = ka[len(ka.split(' ')[0]) :]
        kb = next((k for k in groups if k.startswith(b + '_') and k[len(k.split(' ')[0]) :] == role), None)
        if kb is not None:
            tests[f'{a} vs {b}{role}'] = mann_whitney(group_values(ga), group_values(groups[kb]))
    return tests


def group_json(runs: list, labels: list) -> dict:
    "A group's runs as JSON: each run's solved episode (None: censored at its last episode) and the percentiles."
    values = solved_values(runs)
    return dict(
        runs=len(runs),
        solved=sum(v != math.inf for v in values),
        percentiles=[fmt(percentile_nearest(values, q)) for q in (25, 50, 75)],
        per_run={lab: dict(solved=r['solved'], last=r['last'], exact=r['exact']) for lab, r in zip(labels, runs)},
    )


def write_summary(path: Path, groups: dict, args, tests=None) -> None:
    """The JSON the Results page reads: the claim, one line (each group's percentiles, nearest rank, and the tests
    between agents), the groups and the tests."""
    short = lambda name: name.split('_bs_')[0] + (' ' + name.split(' ')[-1] if ' [' in name else '')
    line = '; '.join(
        f"{short(k)} {'-'.join(g['percentiles'])} ({g['solved']}/{g['runs']} solved)" for k, g in sorted(groups.items())
    )
    tests = tests or {}
    compared = '; '.join(f"{k}: Mann-Whitney p = {t['p']:.2g}" for k, t in tests.items())
    summary = (
        f"{args.note + ': ' if args.note else ''}{line} (episodes to a {args.window}-episode mean of "
        f"{args.threshold:g}, 25-50-75th, nearest rank; cens.: not reached)" + (f'; {compared}' if compared else '')
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    data = dict(claim=args.claim, summary=summary, groups=groups) | (dict(tests=tests) if tests else {})
    path.write_text(json.dumps(data, indent=1) + '\n')


if __name__ == '__main__':
    main()
