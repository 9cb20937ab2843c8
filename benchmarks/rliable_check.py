"""Our rliable-style aggregates (`uncertain_rl.suites.stats`) against rliable itself (Agarwal et al. 2021).

A fixed score matrix (3 algorithms x 10 runs x 5 tasks, seed 0) goes through both: the IQM, mean, median and
optimality gap with their stratified-bootstrap 95% intervals, the performance profile at a few thresholds with its
bands, and the probability of improvement of one algorithm over another with its interval. Point estimates must be
equal to 1e-12. Intervals come from two different random streams (rliable's arch bootstrap, our numpy Generator),
so they must agree only to a Monte Carlo tolerance: 0.02 with 2,000 resamples, widened for the performance profile
to one step of its grid (1 / (runs x tasks) = 0.02) plus 0.02, since its bootstrap distribution is discrete.

rliable is not a dependency of the library: run this in its own environment,

    python -m venv /work/venvs/rliable
    /work/venvs/rliable/bin/pip install rliable numpy scipy 'pandas<3'    # arch 7.2 (rliable 1.2) fails on pandas 3
    /work/venvs/rliable/bin/python benchmarks/rliable_check.py

Our module is pure numpy/scipy, so it is imported from this checkout (no JAX needed). The report is printed and
written to benchmarks/results/rliable_check.txt; the exit status is 0 on PASS, 1 on FAIL.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / 'benchmarks' / 'results' / 'rliable_check.txt'
REPS, SEED, LEVEL = 2000, 0, 0.95
POINT_TOL, INTERVAL_TOL = 1e-12, 0.02
TAUS = [0.25, 0.5, 0.75, 1.0]
RUNS, TASKS = 10, 5


def score_matrices() -> dict:
    "Three algorithms' [runs, tasks] scores: normal around 0.4, 0.6 and 0.8 (some above 1, some below 0)."
    rng = np.random.default_rng(SEED)
    return {name: rng.normal(mu, 0.35, (RUNS, TASKS)) for name, mu in (('A', 0.8), ('B', 0.6), ('C', 0.4))}


def rliable_estimates(scores: dict) -> dict:
    "rliable's point estimates and intervals: {(quantity, algorithm): (point, lo, hi)}."
    from rliable import library as rly, metrics

    out = {}
    agg = lambda x: np.array(
        [
            metrics.aggregate_iqm(x),
            metrics.aggregate_mean(x),
            metrics.aggregate_median(x),
            metrics.aggregate_optimality_gap(x),
        ]
    )
    points, cis = rly.get_interval_estimates(
        scores, agg, reps=REPS, confidence_interval_size=LEVEL, random_state=np.random.RandomState(SEED)
    )
    for name in scores:
        for i, q in enumerate(('IQM', 'mean', 'median', 'optimality gap')):
            out[q, name] = (points[name][i], cis[name][0, i], cis[name][1, i])
    profiles, _ = rly.create_performance_profile(scores, TAUS, reps=10)  # its point estimates (public API)
    profile = lambda x: rly.score_distributions(x, TAUS)  # its bands, with a seeded bootstrap
    _, bands = rly.get_interval_estimates(
        scores, profile, reps=REPS, confidence_interval_size=LEVEL, random_state=np.random.RandomState(SEED)
    )
    for name in scores:
        for i, tau in enumerate(TAUS):
            out[f'profile({tau})', name] = (profiles[name][i], bands[name][0, i], bands[name][1, i])
    np.random.seed(SEED)  # rliable's independent bootstrap draws from numpy's global generator
    pairs = {'A>B': [scores['A'], scores['B']], 'B>C': [scores['B'], scores['C']]}
    points, cis = rly.get_interval_estimates(
        pairs, metrics.probability_of_improvement, reps=REPS, confidence_interval_size=LEVEL
    )
    for pair in pairs:
        out['P(improvement)', pair] = (float(points[pair]), cis[pair][0], cis[pair][1])
    return {k: tuple(float(np.squeeze(v)) for v in vs) for k, vs in out.items()}


def our_estimates(scores: dict) -> dict:
    "The same from uncertain_rl.suites.stats."
    sys.path.insert(0, str(ROOT))
    from uncertain_rl.suites import stats as ours

    out = {}
    agg = lambda x: np.array([ours.iqm(x), ours.mean_score(x), ours.median_score(x), ours.optimality_gap(x)])
    for name, x in scores.items():
        est = ours.stratified_bootstrap(x, agg, REPS, SEED, LEVEL)
        for i, q in enumerate(('IQM', 'mean', 'median', 'optimality gap')):
            out[q, name] = (est.estimate[i], est.lo[i], est.hi[i])
        prof = ours.performance_profile(x, TAUS, REPS, SEED, LEVEL)
        for i, tau in enumerate(TAUS):
            out[f'profile({tau})', name] = (prof.estimate[i], prof.lo[i], prof.hi[i])
    for pair in ('A>B', 'B>C'):
        est = ours.stratified_bootstrap(
            (scores[pair[0]], scores[pair[2]]), ours.average_probability_of_improvement, REPS, SEED, LEVEL
        )
        out['P(improvement)', pair] = est
    return {k: tuple(float(v) for v in vs) for k, vs in out.items()}


def compare(ours: dict, theirs: dict) -> tuple:
    "The report's lines and whether every quantity agrees."
    head = (
        f"{'quantity':<16}{'alg':<5}{'ours':>9}{'rliable':>9}{'|d|':>9}  {'ours 95%':<18}{'rliable 95%':<18}"
        f"{'max |d|':>8}  ok"
    )
    lines, ok_all = [head, '-' * len(head)], True
    for key, (p, lo, hi) in ours.items():
        q, *r = theirs[key]
        tol = INTERVAL_TOL + (1 / (RUNS * TASKS) if key[0].startswith('profile') else 0.0)
        dp, di = abs(p - q), max(abs(lo - r[0]), abs(hi - r[1]))
        ok = dp <= POINT_TOL and di <= tol + 1e-12
        ok_all &= ok
        lines.append(
            f'{key[0]:<16}{key[1]:<5}{p:>9.4f}{q:>9.4f}{dp:>9.1e}  [{lo:6.3f}, {hi:6.3f}]  '
            f'[{r[0]:6.3f}, {r[1]:6.3f}]  {di:8.4f}  {"yes" if ok else "NO"}'
        )
    return lines, ok_all


def main() -> int:
    import platform

    scores = score_matrices()
    lines = [
        f'rliable check: {len(scores)} algorithms x {RUNS} runs x {TASKS} tasks (seed {SEED}), {REPS} bootstrap '
        f'resamples, {LEVEL:.0%} percentile intervals; python {platform.python_version()}, numpy {np.__version__}'
    ]
    try:
        import scipy
        from importlib.metadata import version

        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # arch's deprecation of random_state
            theirs = rliable_estimates(scores)
        lines.append(
            f'rliable {version("rliable")}, arch {version("arch")}, pandas {version("pandas")}, '
            f'scipy {scipy.__version__}; tolerance: points '
            f'{POINT_TOL:g}, interval ends {INTERVAL_TOL} (profiles {INTERVAL_TOL + 1 / (RUNS * TASKS):g})'
        )
    except Exception as e:  # not installed, or fails to import (arch on pandas 3)
        lines += [f'rliable unavailable: {type(e).__name__}: {e}', 'FAIL (rliable could not be run)']
        return finish(lines, 1)
    table, ok = compare(our_estimates(scores), theirs)
    lines += [''] + table + ['', 'PASS' if ok else 'FAIL']
    return finish(lines, 0 if ok else 1)


def finish(lines: list, status: int) -> int:
    "Print the report, write it to OUT, return the exit status."
    text = '\n'.join(lines) + '\n'
    print(text, end='')
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    return status


if __name__ == '__main__':
    sys.exit(main())
