"""AZ+UBE against the paper's at N = 40: which of our differences keeps it from the goal? One variant at a time.

The claim `e_az_tabular_authors_rival` gives AZ+UBE the authors' temperature schedule; at Deep Sea 40 it still reaches
the goal in 3 of 10 runs where the paper's does in 91% of 35 seeds (Oren et al. 2025, Table 1). This script runs the
same rival (the claim's arm, its maps 100-109, seeds 0-9, 45,000 interactions) with one more setting changed, as a
design of its own (`explore:<variant>`) in a store of its own, and prints the runs that reached the goal and when.
Exploratory: no test, no verdict; a variant that closes the gap becomes a claim declared before its runs.

    python benchmarks/az_ube_rival.py --variant batch256 --out benchmarks/results/az_ube_rival   # ~12 min, 2 cores
"""

import argparse
import dataclasses
import json
from pathlib import Path

VARIANTS = {  # name -> the settings changed beyond the claim's rival
    'batch256': dict(batch_size=256),  # Table 3's batch of 256 (single steps, uniform: not 256 x 5 prioritized)
}


def explore_design(variant: str, size: int = 40):
    "The claim's design at `size` with the rival's settings changed by `VARIANTS[variant]`, that rival alone."
    from uncertain_rl.suites.core import Arm, claims
    from uncertain_rl.suites.store import claim_design

    base = claims()['e_az_tabular_authors_rival']
    rival = base.arms[1]
    arm = Arm(f'{rival.label} {variant}', rival.agent, {**rival.overrides, **VARIANTS[variant]})
    runs = tuple(r for r in base.runs if r[0]['size'] == size)
    claim = dataclasses.replace(base, name=f'explore_{variant}', arms=(base.arms[0], arm), runs=runs)
    return claim_design(claim)._replace(arms=(arm,))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--variant', choices=sorted(VARIANTS), required=True)
    ap.add_argument('--out', type=Path, required=True, help='results.json goes here, the store under store_<variant>')
    args = ap.parse_args()
    from uncertain_rl.suites.store import load_records, run_design

    design = explore_design(args.variant)
    store = args.out / f'store_{args.variant}'
    print(run_design(design, store))
    rows = sorted(
        (r['seed'], r['metrics']['first_treasure'], r['episodes'], r['run_seconds'])
        for r in load_records(store)
        if r['design'] == design.name
    )
    size = design.runs[0].setting['size']
    reached = [(s, e * size) for s, e, _, _ in rows if e is not None]
    print(f'{args.variant}: N = {size}, {len(reached)} of {len(rows)} runs reached the goal; interactions: {reached}')
    path = args.out / 'results.json'
    results = json.loads(path.read_text()) if path.exists() else {}
    results[args.variant] = dict(
        size=size,
        overrides=dict(design.arms[0].overrides),
        runs=[dict(seed=s, first_goal_episode=e, episodes=n, run_seconds=t) for s, e, n, t in rows],
        reached=len(reached),
    )
    tmp = path.with_suffix('.tmp')
    tmp.write_text(json.dumps(results, indent=1) + '\n')
    tmp.rename(path)


if __name__ == '__main__':
    main()
