"""E-AZ, AZ + UBE and AZ on Deep Sea with the true model (R2 and R3 of the E-AZ notebook).

Every agent runs on the same map (mapping seed 42) and seeds, with a budget of `--episodes` episodes (N steps each)
per size; each (agent, size) is one `experiments.sweep` (one compiled `run` with the seeds vmapped, keys
`split(PRNGKey(0), seeds)`, no evaluations or snapshots), stopped once every run has solved. Reported
per cell: seeds that found the treasure, the median environment steps to the first treasure (Table 1's measure),
seeds solved by bsuite's rule (the fraction of bad episodes falls below 0.9) and the median solved-at episode.

    python benchmarks/emcts_deep_sea.py --sizes 20 25 30 --seeds 5 --episodes 1500     # R3 (about 10 min on 2 cores)
    python benchmarks/emcts_deep_sea.py --sizes 40 --seeds 20 --episodes 1200  # the paper's Table 1 size (GPU)

Writes `table.md` and `results.json` under `--out`.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from uncertain_rl.registry import agent_config
from uncertain_rl.experiments import Experiment, split_keys, sweep
from uncertain_rl.metrics import first_treasure_episode, sweep_solved_at

AGENTS = {
    'e_az': ('E-AZ (β = 10)', {'beta': [10.0]}),
    'az_ube': ('AZ + UBE (β = 10)', {'beta': [10.0]}),
    'az': ('AZ (Dirichlet 0.25)', {'dirichlet_fraction': [0.25]}),
}


def run(agent: str, size: int, seeds: int, episodes: int, simulations: int) -> dict:
    start = time.perf_counter()
    exp = Experiment(
        agent_config(agent, simulations=simulations),
        'deep_sea',
        episodes=episodes,
        size=size,
        seeds=seeds,
        keys=split_keys(seeds),
        grid=AGENTS[agent][1],
        eval_every=0,
        snapshots=0,
        num_chunks=25,
    )
    done, res = sweep(exp, sweep_solved_at)
    first = first_treasure_episode(np.nan_to_num(res.logs['denoised_return'])).reshape(-1)
    return dict(
        solved_at=done.reshape(-1).tolist(),
        first_treasure_episode=first.tolist(),
        first_treasure_steps=(first * size).tolist(),
        seconds=time.perf_counter() - start,
    )


def cell(r: dict) -> str:
    f, s = np.asarray(r['first_treasure_steps']), np.asarray(r['solved_at'])
    med = lambda x: f"{int(np.median(x))}" if len(x) else '-'
    return f"{(f > 0).sum()}/{len(f)}, {med(f[f > 0])}; {(s > 0).sum()}/{len(s)}, {med(s[s > 0])}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--sizes', type=int, nargs='+', default=[20, 25, 30])
    p.add_argument('--agents', nargs='+', choices=list(AGENTS), default=list(AGENTS))
    p.add_argument('--seeds', type=int, default=5)
    p.add_argument('--episodes', type=int, default=1000)
    p.add_argument('--simulations', type=int, default=32)
    p.add_argument('--out', default='benchmarks/results/emcts_deep_sea')
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for agent in a.agents:
        for size in a.sizes:
            results[f'{agent}/{size}'] = r = run(agent, size, a.seeds, a.episodes, a.simulations)
            print(
                f"{agent:7s} N={size}: first treasure steps {r['first_treasure_steps']}, solved at {r['solved_at']} "
                f"({r['seconds']:.0f} s)",
                flush=True,
            )
    head = '| agent | ' + ' | '.join(f'N = {n}' for n in a.sizes) + ' |\n|---|' + '---:|' * len(a.sizes) + '\n'
    rows = ''.join(
        f"| {AGENTS[g][0]} | " + ' | '.join(cell(results[f'{g}/{n}']) for n in a.sizes) + ' |\n' for g in a.agents
    )
    table = (
        f"Deep Sea (map 42), {a.seeds} seeds, {a.episodes} episodes, {a.simulations} simulations. Cell: seeds "
        f"that found the treasure, median steps to the first treasure; seeds solved, median solved-at episode.\n\n"
        + head
        + rows
    )
    print(table)
    (out / 'table.md').write_text(table)
    (out / 'results.json').write_text(json.dumps(dict(args=vars(a), results=results), indent=1))


if __name__ == '__main__':
    main()
