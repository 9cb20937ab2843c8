r"""The E-AZ oracle on subleq beside ours: the authors' JAX E-AZ and AZ (`run_e_az.py --env subleq`, their subleq-16)
and our E-AZ and AZ (the claim `e_az_subleq_negate`'s runs in the committed store), as environment steps until the
first correct program.

    python benchmarks/oracles/e_az/compare_subleq.py \
        --summary-out benchmarks/results/oracles/e_az_subleq_negate_jax.json \
        --theirs benchmarks/results/oracles/e_az/subleq_negate/eaz.json \
                 benchmarks/results/oracles/e_az/subleq_negate/rivals.json

Their count is `goal_env_steps`: real transitions of their 128 parallel games until the first reward (their subleq
pays 1 exactly when the program passes every test case), their uniformly random warm-up (5,000 frames: learning_starts,
config.py) included; `goal_phase` says whether it came in the warm-up or in self-play. Ours: `steps_to_program`, the
steps of one environment until the end of the first episode that wrote a correct program (`suites.subleq`), censored
at the steps played. One environment against 128 in parallel: their count is spread over 128 programs written at
once, ours over one program at a time; the two say whether each code finds the program at the same order of steps, and
in which phase theirs does. Per group: runs, reached, the 25th-50th-75th percentiles (nearest rank), and for each of
their agents against our run of the same agent the log-rank p (`uncertain_rl.suites.stats`).
"""

import argparse
import json
from pathlib import Path

import numpy as np

from uncertain_rl.agents.e_az_sim import E_AZ_SUBLEQ_NEGATE
from uncertain_rl.suites import stats
from uncertain_rl.suites.store import load_records
from uncertain_rl.suites.verdicts import claim_runs

ARMS = {'eaz': 'e_az_io', 'eaz_full': 'e_az_full', 'az': 'az'}  # theirs -> our arm of the claim


def theirs(path: str, agent: str) -> tuple:
    "(steps, reached, phases) of their runs of `agent`; a run that did not reach is censored at its steps."
    rows = [r for r in json.loads(Path(path).read_text()) if r['agent'] == agent]
    if any(r['rc'] != 0 for r in rows):
        raise SystemExit(f'{path}: a run of {agent} failed')
    reached = np.array([r['goal_env_steps'] is not None for r in rows], bool)
    steps = np.array([r['goal_env_steps'] if r['goal_env_steps'] is not None else r['env_steps'] for r in rows])
    return steps, reached, [r['goal_phase'] for r in rows]


def ours(store: str, arm: str) -> tuple:
    "(steps, reached) of the claim's `arm`: the runs its report tests."
    runs = claim_runs(load_records(store), E_AZ_SUBLEQ_NEGATE).get(arm, [])
    if not runs:
        raise SystemExit(f'{store}: no {arm} run of claim {E_AZ_SUBLEQ_NEGATE.name}')
    m = [r['metrics'] for r in runs]
    reached = np.array([x['first_program'] is not None for x in m], bool)
    return np.array([x['steps_to_program'] if x['first_program'] else x['steps'] for x in m]), reached


def quartiles(t: np.ndarray, e: np.ndarray) -> str:
    "25th-50th-75th percentiles, nearest rank, a run that did not reach counting as never."
    v = np.sort(np.where(e, t, np.inf))
    pick = [v[int(round(q * (len(v) - 1)))] for q in (0.25, 0.5, 0.75)]
    return '-'.join('never' if np.isinf(p) else f'{int(p):,}' for p in pick)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--theirs', required=True, nargs='+', help="run_e_az.py's results.json files")
    ap.add_argument('--store', default='benchmarks/results/suite/cpu')
    ap.add_argument('--summary-out', help='write the claim line for the Results page here')
    args = ap.parse_args()
    rows = [r for p in args.theirs for r in json.loads(Path(p).read_text())]
    tmp = Path(args.summary_out or '/tmp/x').with_suffix('.rows.tmp')
    tmp.write_text(json.dumps(rows))
    parts, data = [], {}
    for agent, arm in ARMS.items():
        if not any(r['agent'] == agent for r in rows):
            continue
        (ta, ea, phases), (tb, eb) = theirs(str(tmp), agent), ours(args.store, arm)
        test = stats.logrank(ta, ea, tb, eb, alternative='two-sided')
        warm = sum(p == 'random' for p in phases)
        line = (
            f'their {agent} {quartiles(ta, ea)} ({int(ea.sum())}/{len(ea)} reached, {warm} in the random warm-up); '
            f'our {arm} {quartiles(tb, eb)} ({int(eb.sum())}/{len(eb)} reached); log-rank p = {test.p:.2g}'
        )
        print(line)
        parts.append(line)
        data[agent] = dict(
            theirs=ta.tolist(),
            theirs_reached=ea.tolist(),
            phases=phases,
            ours=tb.tolist(),
            ours_reached=eb.tolist(),
            p=test.p,
            method=test.method,
        )
    tmp.unlink()
    if args.summary_out:
        summary = (
            "their JAX code (emcts/e-alphazero 0d40290, their subleq-16, 128 parallel games, beta 1, IO hash unless "
            "full) on Negate Positives, steps to the first correct program (25-50-75th): " + '; '.join(parts)
        )
        out = Path(args.summary_out)
        part = out.with_suffix('.json.tmp')
        part.write_text(json.dumps(dict(claim=E_AZ_SUBLEQ_NEGATE.name, summary=summary, agents=data), indent=1))
        part.replace(out)
        print(f'wrote {out}')


if __name__ == '__main__':
    main()
