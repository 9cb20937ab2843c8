"""The IV-RL oracle beside ours on one task: the authors' BootstrapDQN and IV_DQN (`run_iv_rl.py`, as their script
runs them) and our agents at the same settings (`ours.py`), on cartpole_noise/0, as Table 1's statistic.

    python benchmarks/oracles/iv_rl/compare.py --theirs benchmarks/results/oracles/iv_rl/as_run_noise_0.1 \
        --ours benchmarks/results/oracles/iv_rl/ours_noise_0.1 \
        --summary-out benchmarks/results/oracles/iv_dqn_cartpole_ours_as_run.json
    # one noise scale of bsuite's sweep (sweep.sh: their seed k ran cartpole_noise/k; ids 4-7 are noise 0.3)
    python benchmarks/oracles/iv_rl/compare.py --theirs benchmarks/results/oracles/iv_rl/as_run_sweep --ids 4-7 \
        --task 'cartpole_noise/4-7 (noise 0.3)' --ours benchmarks/results/oracles/iv_rl/ours_noise_0.3

Per run: the first training episode whose running 100-episode mean of the return reaches 750 (`table1.py`'s
statistic on their training CSV and on our summary's returns; a run that never does is censored at the episodes it
played). Per group the 25th-50th-75th percentiles (nearest rank). Then two questions, each a two-sided log-rank test
(exact permutation p) with the ratio of Kaplan-Meier medians and its order-statistic interval (Price & Bonett 2002),
Holm's correction over all of them (`uncertain_rl.suites.stats`):
- **implementation**: each of their agents against ours at the same settings (a difference is ours or theirs);
- **the gap**: IV-DQN against Bootstrapped DQN, in their code and in ours (Table 1's effect).
Whether an implementation pair *agrees* is answered by an equivalence test, not by a large p: two one-sided tests
that the ratio of medians lies inside the margin declared before the runs, [0.8, 1.25] (`stats.median_equivalence`,
α = 0.05, the 90% interval inside the margin); otherwise the pair is "not shown to agree", with its interval.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from table1 import cumulative, read_csv, solved_from_cumulative, solved_from_returns  # noqa: E402

from uncertain_rl.suites import stats  # noqa: E402

THEIRS = {'their BootstrapDQN': 'BootstrapDQN', 'their IV_DQN': 'IV_DQN'}
OURS = {'our Bootstrapped DQN': 'boot', 'our IV-DQN (uniform)': 'iv_uniform', 'our IV-DQN (BIV, ξ = 5)': 'iv'}
PAIRS = (  # (a, b): the ratio a / b
    ('their BootstrapDQN', 'our Bootstrapped DQN'),
    ('their IV_DQN', 'our IV-DQN (uniform)'),
    ('their IV_DQN', 'our IV-DQN (BIV, ξ = 5)'),
    ('their IV_DQN', 'their BootstrapDQN'),
    ('our IV-DQN (uniform)', 'our Bootstrapped DQN'),
    ('our IV-DQN (BIV, ξ = 5)', 'our Bootstrapped DQN'),
)
WINDOW, THRESHOLD = 100, 750.0


def run_times(runs: list) -> dict:
    "(time, event) per run: the solved episode, or the last episode played (censored)."
    t = np.array([r['solved'] or r['last'] for r in runs])
    return dict(times=t, events=np.array([r['solved'] is not None for r in runs]), runs=runs)


def seed_of(csv: Path) -> int:
    "The seed of a run's training CSV (`seed_<k>/cartpole_noise/<agent folder>/train/<file>.csv`)."
    return int(csv.parents[3].name.removeprefix('seed_'))


def parse_ids(text: str) -> range:
    "'4-7' (or '4'): the bsuite ids, which are the seeds of sweep.sh's runs."
    m = re.fullmatch(r'(\d+)(?:-(\d+))?', text)
    if not m or int(m[1]) > int(m[2] or m[1]):
        raise SystemExit(f"--ids must be 'A-B' or 'A' with 0 <= A <= B, not {text!r}")
    return range(int(m[1]), int(m[2] or m[1]) + 1)


def load_theirs(folder: Path, agent: str, ids=None) -> dict:
    "Their agent's finished runs: the training CSV of every seed folder whose run.json is written (of `ids` only)."
    csvs = sorted(folder.glob(f'seed_*/cartpole_noise/{agent}_bs_*/train/*.csv'))
    csvs = [c for c in csvs if (c.parent.parent / 'run.json').exists() and (ids is None or seed_of(c) in ids)]
    if not csvs:
        raise SystemExit(f'{folder} has no finished run of {agent}')
    runs = [solved_from_cumulative(*cumulative(read_csv(c), 'episode_return'), THRESHOLD, WINDOW, False) for c in csvs]
    return run_times(runs)


def load_ours(folder: Path, arm: str) -> dict:
    "Our arm's seeds from ours.py's summary.json."
    data = json.loads((folder / arm / 'summary.json').read_text())
    return run_times([solved_from_returns(r, THRESHOLD, WINDOW, False) for r in data['returns']])


def quartiles(g: dict) -> str:
    "25th-50th-75th percentiles, nearest rank, a censored run counting as never."
    v = np.sort(np.where(g['events'], g['times'], np.inf))
    pick = [v[int(round(q * (len(v) - 1)))] for q in (0.25, 0.5, 0.75)]
    return '-'.join('cens.' if np.isinf(p) else str(int(p)) for p in pick)


def compare(a: dict, b: dict) -> dict:
    "Log-rank a against b (two-sided, exact permutation where feasible) and the ratio of Kaplan-Meier medians a / b."
    test = stats.logrank(a['times'], a['events'], b['times'], b['events'], alternative='two-sided')
    ratio = stats.median_ratio(a['times'], a['events'], b['times'], b['events'])
    same = stats.median_equivalence(a['times'], a['events'], b['times'], b['events'])
    return dict(
        p=float(test.p),
        method=test.method,
        ratio=ratio.estimate,
        low=ratio.lo,
        high=ratio.hi,
        equivalence=dict(p=same.p, low=same.lo, high=same.hi, margin=list(same.margin), equivalent=same.equivalent),
    )


IMPLEMENTATION = PAIRS[:3]  # their agent against ours at the same settings: the pairs whose agreement is asked


def agreement_text(t: dict) -> str:
    "What the equivalence test says of a pair, on its Holm-adjusted p: agree within the margin, or not shown to agree."
    e = t['equivalence']
    return stats.agreement_text(t['ratio'], e['low'], e['high'], e['holm'], tuple(e['margin']), p_label='TOST Holm p')


def tests_of(groups: dict) -> dict:
    "Every pair of PAIRS both of whose groups are there, with Holm's p over them."
    tests = {f'{a} / {b}': compare(groups[a], groups[b]) for a, b in PAIRS if a in groups and b in groups}
    for t, h in zip(tests.values(), stats.holm(np.array([t['p'] for t in tests.values()]))):
        t['holm'] = float(h)
    same = [tests[f'{a} / {b}']['equivalence'] for a, b in IMPLEMENTATION if f'{a} / {b}' in tests]
    for e, h in zip(same, stats.holm(np.array([e['p'] for e in same]))):  # agreement is asked of each pair: Holm
        e['holm'] = float(h)
        e['equivalent'] = bool(h <= 0.05)
    return tests


def ratio_text(t: dict) -> str:
    "The median ratio with its interval, or why there is none."
    if not np.isfinite(t['low']):
        return 'no ratio (a median not reached)'
    return f"{t['ratio']:.2f} [{t['low']:.2f}, {t['high']:.2f}]"


TASK = 'cartpole_noise/0, seeds 0-19'  # the committed comparison's task (noise 0.1)


def summary_line(groups: dict, tests: dict, task: str = TASK) -> str:
    "The line the Results page's reproduction table shows."
    return (
        f"Our agents at their code's settings on the same task ({task}; benchmarks/oracles/iv_rl"
        "/ours.py), training episodes to a 100-episode mean of 750 (25-50-75th): "
        + '; '.join(f"{n} {quartiles(g)} ({int(g['events'].sum())}/{len(g['times'])})" for n, g in groups.items())
        + '; median ratio [95%] (Holm p): '
        + '; '.join(f"{n} {ratio_text(t)} ({t['holm']:.2g})" for n, t in tests.items())
        + '; equivalence within [0.8, 1.25] (TOST, α = 0.05, Holm over the pairs): '
        + '; '.join(
            f'{a} / {b} {agreement_text(tests[f"{a} / {b}"])}' for a, b in IMPLEMENTATION if f'{a} / {b}' in tests
        )
    )


def group_row(g: dict) -> dict:
    "A group's row of the summary's table: its percentiles, how many runs reached 750, how many ran."
    return dict(percentiles=quartiles(g), reached=int(g['events'].sum()), runs=len(g['times']))


def group_line(name: str, g: dict) -> str:
    "A group's printed line: runs, how many reached 750, the percentiles."
    return f"{name:<26} {len(g['times']):>3} runs {int(g['events'].sum()):>3} reached  {quartiles(g)}"


def agreement_word(t: dict) -> str:
    "The equivalence test's answer in two words: agree within the margin, or not shown to agree."
    e = t['equivalence']
    return f"agree within [{e['margin'][0]:g}, {e['margin'][1]:g}]" if e['equivalent'] else 'not shown to agree'


def json_finite(x):
    "`x` with every non-finite float as None (JSON has no NaN or infinity: 'a median not reached')."
    if isinstance(x, dict):
        return {k: json_finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_finite(v) for v in x]
    return None if isinstance(x, float) and not np.isfinite(x) else x


def write_summary(out: Path, data: dict) -> None:
    "`data` as JSON at `out`, atomically (a temporary file, then a rename), non-finite numbers as null."
    tmp = out.with_suffix('.json.tmp')
    tmp.write_text(json.dumps(json_finite(data), indent=1, allow_nan=False) + '\n')
    tmp.replace(out)
    print(f'\nwrote {out}')


def parse_scales(text: str) -> list:
    "'0.3:4-7,1:8-11': (noise scale, their bsuite ids) per scale; 'S:all' takes every run of their folder."
    out = []
    for part in text.split(','):
        noise, _, ids = part.partition(':')
        try:
            out.append((float(noise), None if ids == 'all' else parse_ids(ids)))
        except ValueError:
            raise SystemExit(f"--scales must be 'NOISE:A-B,...' (NOISE a number, A-B ids or all), not {part!r}")
    return out


SCALES = '0.1:all,0.3:4-7,1:8-11,3:12-15,10:16-19'  # the five noise scales of the claim's task (bsuite's 20 settings)


def scale_groups(theirs: Path, sweep: Path, ours_root: Path, noise: float, ids) -> dict:
    "Every group at one noise scale: their runs (the committed noise-0.1 runs for `all`, else the sweep's ids)."
    folder = theirs if ids is None else sweep
    groups = {n: load_theirs(folder, a, ids) for n, a in THEIRS.items()}
    ours = ours_root / f'ours_noise_{noise:g}'
    ours = ours if ours.is_dir() else ours_root / f'ours_noise_{noise:.1f}'
    return groups | {n: load_ours(ours, a) for n, a in OURS.items() if (ours / a).is_dir()}


def stratified(per_scale: dict) -> dict:
    """Per pair of PAIRS, the log-rank test stratified by noise scale (two-sided, permutation within scales), Holm
    over the pairs: does one side reach 750 sooner over the five scales taken together?"""
    tests = {}
    for a, b in PAIRS:
        ga = [(g[a], k) for k, g in enumerate(per_scale.values()) if a in g and b in g]
        gb = [(g[b], k) for k, g in enumerate(per_scale.values()) if a in g and b in g]
        cat = lambda gs, f: np.concatenate([g[f] for g, _ in gs])  # noqa: E731
        strata = lambda gs: np.concatenate([np.full(len(g['times']), k) for g, k in gs])  # noqa: E731
        test = stats.logrank(
            cat(ga, 'times'),
            cat(ga, 'events'),
            cat(gb, 'times'),
            cat(gb, 'events'),
            strata(ga),
            strata(gb),
            alternative='two-sided',
        )
        tests[f'{a} / {b}'] = dict(p=float(test.p), z=float(test.statistic), scales=len(ga))
    for t, h in zip(tests.values(), stats.holm(np.array([t['p'] for t in tests.values()]))):
        t['holm'] = float(h)
    return tests


def scales_line(per_scale: dict, tests: dict) -> str:
    "The Results page's line for the five scales: each scale's medians and agreement, then the stratified tests."
    parts = []
    for noise, (groups, pair_tests) in per_scale.items():
        medians = ', '.join(
            f"{n} {quartiles(g).split('-')[1]} ({int(g['events'].sum())}/{len(g['times'])})" for n, g in groups.items()
        )
        agree = '; '.join(
            f"{a.removeprefix('their ')}: {agreement_word(pair_tests[f'{a} / {b}'])}"
            for a, b in IMPLEMENTATION[:2]
            if f'{a} / {b}' in pair_tests
        )
        parts.append(f'noise {noise:g}: medians {medians}; {agree}')
    strat = '; '.join(
        f"{n} {'sooner' if t['z'] > 0 else 'later'} (z = {t['z']:.2f}, Holm p = {t['holm']:.2g})"
        for n, t in tests.items()
    )
    return (
        'The five noise scales of the claim\'s task (their code: ids 0-1 and their seeds at noise 0.1, sweep.sh\'s ids '
        '4-19 one run each; ours: 20 seeds a scale; training episodes to a 100-episode mean of 750, median, runs '
        'reaching it): ' + ' | '.join(parts) + '. Log-rank stratified by scale, two-sided, Holm over six: ' + strat
    )


def main_scales(args) -> None:
    "`--scales`: every noise scale, one block each, then the tests stratified over the scales."
    per_scale = {}
    for noise, ids in parse_scales(args.scales):
        groups = scale_groups(Path(args.theirs), Path(args.sweep), Path(args.ours), noise, ids)
        per_scale[noise] = (groups, tests_of(groups))
        print(f'\nnoise {noise:g}:')
        for n, g in groups.items():
            print(f'  {group_line(n, g)}')
        for a, b in IMPLEMENTATION:
            if f'{a} / {b}' in per_scale[noise][1]:
                print(f"  {a + ' / ' + b:<50} {agreement_text(per_scale[noise][1][f'{a} / {b}'])}")
    tests = stratified({k: g for k, (g, _) in per_scale.items()})
    print('\nlog-rank stratified by noise scale (two-sided, permutation within scales), Holm over the pairs:')
    for n, t in tests.items():
        print(
            f"{n:<50} z = {t['z']:+.2f} ({'a sooner' if t['z'] > 0 else 'a later'})",
            f"p = {t['p']:.3g}  Holm {t['holm']:.3g}",
        )
    if args.summary_out:
        table = {f'{k:g}': {n: group_row(g) for n, g in gs.items()} for k, (gs, _) in per_scale.items()}
        data = dict(
            claim='iv_dqn_cartpole',
            summary=scales_line(per_scale, tests),
            groups=table,
            stratified=tests,
            per_scale={f'{k:g}': t for k, (_, t) in per_scale.items()},
        )
        write_summary(Path(args.summary_out), data)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--theirs', required=True, help="the oracle's committed runs (seed_*/cartpole_noise/...)")
    ap.add_argument('--ours', required=True, help="the folder holding ours.py's arms (boot, iv_uniform, iv)")
    ap.add_argument('--ids', help="only their runs of these bsuite ids ('4-7'): one noise scale of sweep.sh's runs")
    ap.add_argument('--task', default=TASK, help='the task, as the summary line names it')
    ap.add_argument('--summary-out', help='write the claim line for the Results page here')
    ap.add_argument(
        '--scales',
        help=f"every noise scale at once ('{SCALES}'): --theirs holds their noise-0.1 runs, "
        "--sweep sweep.sh's, --ours the folder of ours_noise_X/",
    )
    ap.add_argument('--sweep', help="with --scales: sweep.sh's committed runs (ids 4-19)")
    args = ap.parse_args(argv)
    if args.scales:
        return main_scales(args)
    ids = parse_ids(args.ids) if args.ids else None
    groups = {n: load_theirs(Path(args.theirs), a, ids) for n, a in THEIRS.items()}
    groups |= {n: load_ours(Path(args.ours), a) for n, a in OURS.items() if (Path(args.ours) / a).is_dir()}
    print(f'{args.task}; training episodes to a 100-episode mean of 750, 25th-50th-75th (nearest rank)')
    for n, g in groups.items():
        print(group_line(n, g))
    tests = tests_of(groups)
    print(f'\nratio of Kaplan-Meier medians [95%, Price-Bonett], log-rank p (two-sided), Holm over {len(tests)}')
    for n, t in tests.items():
        print(f"{n:<50} {ratio_text(t)}  p = {t['p']:.3g}  Holm {t['holm']:.3g}")
    print('\nequivalence of the implementations, margin [0.8, 1.25], TOST at α = 0.05, Holm over the pairs:')
    for a, b in IMPLEMENTATION:
        if f'{a} / {b}' in tests:
            print(f"{a + ' / ' + b:<50} {agreement_text(tests[f'{a} / {b}'])}")
    if args.summary_out:
        table = {n: group_row(g) for n, g in groups.items()}
        data = dict(claim='iv_dqn_cartpole', summary=summary_line(groups, tests, args.task), groups=table, tests=tests)
        write_summary(Path(args.summary_out), data)


if __name__ == '__main__':
    main()
