"""The PE-DQN oracle beside ours: the authors' PE-DQN (`run_deep_sea.py`), our PE-DQN and our Bootstrapped DQN+P
(`ours.py`) on one Deep Sea design, as episodes to the first treasure and to bsuite's "solved".

    python benchmarks/oracles/pe_dqn/compare.py --size 10 --theirs benchmarks/results/pe_dqn_oracle/n10 \
        --ours benchmarks/results/pe_dqn_oracle/ours_n10 --boot benchmarks/results/pe_dqn_oracle/boot_n10 \
        --summary-out benchmarks/results/oracles/pe_dqn_scaling_n10.json

Per group: seeds, solved, and the 25th-50th-75th percentiles (nearest rank; a seed that did not solve counts as never)
of the first treasure and of the solved episode. Then two questions, each a two-sided log-rank test on the solved
episode (a seed still unsolved is censored at the episodes it ran; permutation p: exact up to 20,000 splits, else
20,000 resamples) with the ratio of Kaplan-Meier medians and its order-statistic interval (Price & Bonett 2002)
(`uncertain_rl.suites.stats`):
- **implementation**: their PE-DQN against ours, on the same design (a difference is ours or theirs);
- **the gap**: each PE-DQN against our Bootstrapped DQN+P (is PE-DQN's slowness the method's, in their code too?).
Holm's correction runs over the tests made. Whether the two PE-DQNs *agree* is a separate question, answered by an
equivalence test: two one-sided tests that the ratio of medians lies inside the margin declared before the runs,
[0.8, 1.25] (`stats.median_equivalence`, α = 0.05: the 90% interval inside the margin); a log-rank p above α is not
agreement. With `--summary-out`, the line the Results page's reproduction table shows for the claim `pe_dqn_regret`
(the same question as the superseded `pe_dqn_scaling`: PE-DQN's episodes against Bootstrapped DQN+P's).

    cd benchmarks/results/oracles && python ../../oracles/pe_dqn/compare.py --growth pe_dqn_scaling_n10.json \
        pe_dqn_scaling_n14.json --summary-out pe_dqn_scaling_n14_growth.json

tests whether a ratio of medians changes between two sizes (an interaction test: the difference of the log ratios
over its standard error, each from its Price-Bonett interval), for the statement "PE-DQN's episodes grow more
slowly with N than Bootstrapped DQN+P's".
"""

import argparse
import json
from pathlib import Path

import numpy as np

from scipy.stats import norm

from uncertain_rl.suites import stats


def load(folder: str, size: int) -> dict:
    "The per-seed results of a summary.json (the oracle runner's or ours.py's) at `size`."
    data = json.loads((Path(folder) / 'summary.json').read_text())
    runs = [r for r in data['results'] if r['size'] == size]
    if not runs:
        raise SystemExit(f'{folder}/summary.json has no seed at size {size}')
    return dict(
        solved=np.array([r['solved_at'] for r in runs]),
        first=np.array([r['first_treasure'] for r in runs]),
        ran=np.array([r['episodes_run'] for r in runs]),
        seeds=[r['seed'] for r in runs],
    )


def times(group: dict) -> tuple:
    "(time, event): the solved episode, or the episodes run for a seed that has not solved (censored)."
    done = group['solved'] > 0
    return np.where(done, group['solved'], group['ran']), done


def quartiles(x: np.ndarray) -> str:
    "25th-50th-75th percentiles, nearest rank, 0 (never) counting as infinite."
    v = np.sort(np.where(x > 0, x, np.inf))
    pick = [v[int(round(q * (len(v) - 1)))] for q in (0.25, 0.5, 0.75)]
    return '-'.join('never' if np.isinf(p) else str(int(p)) for p in pick)


RESAMPLES = 20_000  # the log-rank's Monte Carlo permutations where an exact count is too large


def compare(a: dict, b: dict, seed: int = 0) -> dict:
    """Log-rank a against b (two-sided; permutation p, exact up to 20,000 splits, else 20,000 resamples, whose smallest
    p, `p_floor`, is a bound) and the ratio of Kaplan-Meier medians a / b."""
    test = stats.logrank(*times(a), *times(b), alternative='two-sided', resamples=RESAMPLES, seed=seed)
    ratio = stats.median_ratio(*times(a), *times(b))
    same = stats.median_equivalence(*times(a), *times(b))
    floor = 1 / (RESAMPLES + 1) if test.method.startswith('Monte Carlo') else 0.0
    return dict(
        p=test.p,
        p_floor=floor,
        method=test.method,
        ratio=ratio.estimate,
        low=ratio.lo,
        high=ratio.hi,
        equivalence=dict(p=same.p, low=same.lo, high=same.hi, margin=list(same.margin), equivalent=same.equivalent),
    )


def agreement_text(t: dict) -> str:
    "What the equivalence test says of a pair: agree within the margin, or not shown to agree, with the 90% interval."
    e = t['equivalence']
    return stats.agreement_text(t['ratio'], e['low'], e['high'], e['p'], tuple(e['margin']))


def log_se(t: dict) -> float:
    "The standard error of a log ratio of medians from its 95% Price-Bonett interval."
    return (np.log(t['high']) - np.log(t['low'])) / (2 * norm.isf(0.025))


def growth(small: dict, large: dict, pair: str) -> dict:
    """Whether `pair`'s ratio of medians changes from the smaller size's summary to the larger's: the difference of
    log ratios, its standard error (independent runs at the two sizes) and two-sided normal p."""
    a, b = small['tests'][pair], large['tests'][pair]
    d, se = np.log(b['ratio']) - np.log(a['ratio']), np.hypot(log_se(a), log_se(b))
    return dict(
        pair=pair,
        sizes=[small['size'], large['size']],
        ratios=[a['ratio'], b['ratio']],
        change=float(np.exp(d)),
        low=float(np.exp(d - norm.isf(0.025) * se)),
        high=float(np.exp(d + norm.isf(0.025) * se)),
        p=float(2 * norm.sf(abs(d) / se)),
    )


def growth_main(paths: list, summary_out: str | None) -> None:
    "The interaction test of every pair of two summaries, and (`summary_out`) the Results page's line."
    small, large = (json.loads(Path(p).read_text()) for p in paths)
    rows = [growth(small, large, pair) for pair in small['tests'] if pair in large['tests']]
    adjusted = stats.holm(np.array([g['p'] for g in rows]))
    for g, h in zip(rows, adjusted):
        g['holm'] = float(h)
        print(
            f"{g['pair']:<28} ratio {g['ratios'][0]:.2f} at N = {g['sizes'][0]}, {g['ratios'][1]:.2f} at N = "
            f"{g['sizes'][1]}: changed x{g['change']:.2f} [{g['low']:.2f}, {g['high']:.2f}], p = {g['p']:.2g}, "
            f"Holm {h:.2g}"
        )
    if summary_out:
        line = (
            f"Growth with N from {small['size']} to {large['size']} (does a ratio of median solve episodes change? "
            "difference of log ratios, two-sided, Holm over the pairs): "
            + '; '.join(
                f"{g['pair']} x{g['change']:.2f} [{g['low']:.2f}, {g['high']:.2f}] (Holm p {g['holm']:.2g})"
                for g in rows
            )
            + ': no change shown, so the statement that PE-DQN grows more slowly is withdrawn at these sizes'
            * all(g['holm'] >= 0.05 for g in rows)
        )
        out = Path(summary_out)
        tmp = out.with_suffix('.json.tmp')
        tmp.write_text(json.dumps(dict(claim='pe_dqn_regret', summary=line, tests=rows), indent=1))
        tmp.replace(out)
        print(f'\nwrote {out}')


def holm_text(t: dict) -> str:
    "Holm's p, with '≤' where the test's p is the permutation's floor (the true p may be smaller)."
    return ('≤ ' if t['p'] <= t['p_floor'] + 1e-15 else '') + f"{t['holm']:.2g}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--size', type=int, default=10)
    ap.add_argument('--growth', nargs=2, metavar='SUMMARY', help='two --summary-out files: the growth test only')
    ap.add_argument('--theirs', help="run_deep_sea.py's --out")
    ap.add_argument('--ours', help="ours.py's --out, --arm pe_dqn (none: their PE-DQN against our BDQN+P only)")
    ap.add_argument('--boot', help="ours.py's --out, --arm boot")
    ap.add_argument('--summary-out', help='write the claim line for the Results page here')
    args = ap.parse_args()
    if args.growth:
        return growth_main(args.growth, args.summary_out)
    if not (args.theirs and args.boot):
        ap.error('--theirs and --boot are required (or --growth)')
    groups = {'their PE-DQN': load(args.theirs, args.size)}
    groups |= {'our PE-DQN': load(args.ours, args.size)} if args.ours else {}
    groups['our BDQN+P'] = load(args.boot, args.size)
    print(f'Deep Sea {args.size}, map 42; episodes, 25th-50th-75th percentiles (nearest rank)')
    print(f"{'group':<14} {'seeds':>5} {'solved':>7} {'first treasure':>16} {'solved at':>16}")
    for name, g in groups.items():
        print(
            f'{name:<14} {len(g["seeds"]):>5} {int((g["solved"] > 0).sum()):>7} {quartiles(g["first"]):>16} '
            f'{quartiles(g["solved"]):>16}'
        )
    pairs = [('their PE-DQN', 'our PE-DQN'), ('their PE-DQN', 'our BDQN+P'), ('our PE-DQN', 'our BDQN+P')]
    pairs = [(a, b) for a, b in pairs if a in groups and b in groups]
    tests = {f'{a} / {b}': compare(groups[a], groups[b]) for a, b in pairs}
    adjusted = stats.holm(np.array([t['p'] for t in tests.values()]))
    print(
        '\nsolved episode: ratio of Kaplan-Meier medians [95%, Price-Bonett], log-rank p (two-sided), Holm p over',
        len(tests),
    )
    for (name, t), h in zip(tests.items(), adjusted):
        t['holm'] = float(h)
        print(f"{name:<28} {t['ratio']:.2f} [{t['low']:.2f}, {t['high']:.2f}]  p = {t['p']:.3g}  Holm {h:.3g}")
    implementation = 'their PE-DQN / our PE-DQN'
    if implementation in tests:
        print(f'\nthe implementations, equivalence: {agreement_text(tests[implementation])}')
    if args.summary_out:
        line = (
            f'their PE-DQN (anyboby/diverse-projection-ensembles a680894, our bsuite driver, Table 4 network) on '
            f'Deep Sea {args.size}, map 42, episodes to solve (25-50-75th): '
            + '; '.join(
                f'{n} {quartiles(g["solved"])} ({int((g["solved"] > 0).sum())}/{len(g["seeds"])} seeds)'
                for n, g in groups.items()
            )
            + '; median ratio [95%]: '
            + '; '.join(
                f"{n} {t['ratio']:.2f} [{t['low']:.2f}, {t['high']:.2f}] (Holm p {holm_text(t)})"
                for n, t in tests.items()
            )
            + (
                f'; the implementations {agreement_text(tests["their PE-DQN / our PE-DQN"])}'
                if args.ours
                else '; our PE-DQN on this design: not yet run'
            )
        )
        out = Path(args.summary_out)
        tmp = out.with_suffix('.json.tmp')
        tmp.write_text(json.dumps(dict(claim='pe_dqn_regret', summary=line, size=args.size, tests=tests), indent=1))
        tmp.replace(out)
        print(f'\nwrote {out}')


if __name__ == '__main__':
    main()
