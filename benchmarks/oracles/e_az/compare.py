"""The E-AZ oracle beside ours: the authors' JAX E-AZ (`run_e_az.py`, their Deep Sea) and our learned E-AZ (the claim
`e_az_learned`'s runs in the committed store), as environment interactions until the goal is first reached.

    python benchmarks/oracles/e_az/compare.py --theirs benchmarks/results/oracles/e_az/N20/results.json --size 20 \
        --summary-out benchmarks/results/oracles/e_az_learned_jax_n20.json

Their count is `goal_env_steps`: real transitions of their 16 parallel games until the goal, the 5,120-frame
uniform-random warm-up included (their config; no warm-up episode reaches the bottom at these sizes). Ours: a Deep Sea
episode is exactly N steps, so the first treasure's episode e is e * N interactions; a run that never found it is
censored at the episodes it played. The two Deep Seas differ (their N moves N - 1 times, one map per seed, no move
cost; ours is bsuite's, one map per run from the claim's maps): the comparison says whether the two implementations
find the goal at the same order of interactions, not that they run one task. Per group: runs, reached, the
25th-50th-75th percentiles (nearest rank, never = not reached), and the ratio of Kaplan-Meier medians (theirs / ours)
with its order-statistic interval (Price & Bonett 2002) and a two-sided log-rank p (`uncertain_rl.suites.stats`); and
whether the two are shown to agree: two one-sided tests that the ratio lies inside the margin declared before the
runs, [0.8, 1.25] (`stats.median_equivalence`, α = 0.05); a large log-rank p is not agreement.
"""

import argparse
import json
from pathlib import Path

import numpy as np

from uncertain_rl.suites import stats
from uncertain_rl.agents.e_az_net import E_AZ_LEARNED
from uncertain_rl.suites.verdicts import claim_runs
from uncertain_rl.suites.store import load_records


def theirs(path: str, size: int, agent: str = 'eaz') -> tuple:
    "(interactions, reached) of their runs of `agent` at `size`; a run that did not reach is censored at its steps."
    rows = [r for r in json.loads(Path(path).read_text()) if r['size'] == size and r['agent'] == agent]
    if not rows or any(r['rc'] != 0 for r in rows):
        raise SystemExit(f'{path}: no finished {agent} runs at size {size}, or a run that failed')
    reached = np.array([r['goal_env_steps'] is not None for r in rows])
    steps = np.array([r['goal_env_steps'] if r['goal_env_steps'] is not None else r['env_steps'] for r in rows])
    return steps, reached


def ours(store: str, size: int, arm: str = 'e_az_net') -> tuple:
    "(interactions, reached) of the claim `e_az_learned`'s `arm` at `size`: the runs its report tests."
    runs = [r for r in claim_runs(load_records(store), E_AZ_LEARNED)[arm] if r['setting']['size'] == size]
    if not runs:
        raise SystemExit(f'{store}: no {arm} run of claim {E_AZ_LEARNED.name} at size {size}')
    first = np.array([r['metrics']['first_treasure'] or 0 for r in runs])
    played = np.array([r['metrics']['played'] for r in runs])
    return np.where(first > 0, first, played) * size, first > 0


def quartiles(t: np.ndarray, e: np.ndarray) -> str:
    "25th-50th-75th percentiles, nearest rank, a run that did not reach counting as never."
    v = np.sort(np.where(e, t, np.inf))
    pick = [v[int(round(q * (len(v) - 1)))] for q in (0.25, 0.5, 0.75)]
    return '-'.join('never' if np.isinf(p) else f'{int(p):,}' for p in pick)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--theirs', required=True, help="run_e_az.py's results.json")
    ap.add_argument('--size', type=int, default=20, help='N of their runs and of ours (their N moves N - 1 times)')
    ap.add_argument('--store', default='benchmarks/results/suite/cpu')
    ap.add_argument('--summary-out', help='write the claim line for the Results page here')
    args = ap.parse_args()
    groups = {'their E-AZ': theirs(args.theirs, args.size), 'our E-AZ': ours(args.store, args.size)}
    print(f'Deep Sea {args.size}: interactions until the goal is first reached, 25th-50th-75th (nearest rank)')
    for name, (t, e) in groups.items():
        print(f'{name:<11} {int(e.sum())}/{len(e)} reached  {quartiles(t, e)}')
    (ta, ea), (tb, eb) = groups.values()
    test = stats.logrank(ta, ea, tb, eb, alternative='two-sided')
    ratio = stats.median_ratio(ta, ea, tb, eb)
    same = stats.median_equivalence(ta, ea, tb, eb)
    agree = stats.agreement_text(ratio.estimate, same.lo, same.hi, same.p)
    print(
        f'median ratio theirs / ours {ratio.estimate:.2f} [{ratio.lo:.2f}, {ratio.hi:.2f}], log-rank p = {test.p:.3g}; '
        + agree
    )
    if args.summary_out:
        line = (
            f'their JAX E-AZ (emcts/e-alphazero 0d40290, their Deep Sea, hash novelty, beta 10, 45,000 frames) at '
            f'N = {args.size}, interactions to the first goal (25-50-75th, their 5,120 random warm-up frames '
            f'included): '
            + '; '.join(f'{n} {quartiles(t, e)} ({int(e.sum())}/{len(e)} reached)' for n, (t, e) in groups.items())
            + f'; median ratio theirs / ours {ratio.estimate:.2f} [{ratio.lo:.2f}, {ratio.hi:.2f}], '
            f'log-rank p = {test.p:.2g}; {agree} (different Deep Seas: see benchmarks/oracles/e_az)'
        )
        data = dict(
            claim='e_az_learned',
            summary=line,
            size=args.size,
            ratio=[ratio.estimate, ratio.lo, ratio.hi],
            p=test.p,
            method=test.method,
            equivalence=dict(p=same.p, low=same.lo, high=same.hi, margin=list(same.margin), equivalent=same.equivalent),
        )
        out = Path(args.summary_out)
        tmp = out.with_suffix('.json.tmp')
        tmp.write_text(json.dumps(data, indent=1))
        tmp.replace(out)
        print(f'wrote {out}')


if __name__ == '__main__':
    main()
