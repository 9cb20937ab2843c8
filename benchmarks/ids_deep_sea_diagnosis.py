"""Why IDS abandons Deep Sea's treasure at N = 10: a diagnosis of the registered default, not a claim.

In the claim `pe_dqn_exploration` (the `cpu` store), IDS with its registered default (PE-DQN's App. B variant: λ from
5 to 1 over a third of bsuite's 10,000-episode horizon, ρ² with ε₁ = 1e-4) solved deterministic Deep Sea at N = 30 in
10 of 12 replicates but at N = 10 in only 3 of 12, though it found the treasure in every run. This script trains the
registered default on Deep Sea 10 (map 42), 800 episodes, seeds 2-5 (four of the replicates that did not solve), with
λ at its default schedule (5 -> 1) and held at 1 (`ids_lambda` = `ids_lambda_final` = 1), all in one compiled, vmapped
run with Deep Sea snapshots. It prints the treasures per 100 episodes, and at the last snapshot, in the start cell,
each action's ensemble mean μ and spread σ, its information I and the normalised return variance ρ² read back from
I = log(1 + σ²/ρ²) + ε₂, and the information ratio (regret² / I) that IDS minimises.

What to look for: when λσ dwarfs the gap in μ, the regret bound Δ(a) = max_b (μ + λσ)(b) − (μ − λσ)(a) is about
2λσ, I about σ²/ρ², so the ratio is about 4λ²ρ²: IDS then takes the action of least return variance, whatever the
means say. A treasure whose C51 distribution is still wide (ρ² large) loses to the left turn (a certain zero).

    python benchmarks/ids_deep_sea_diagnosis.py     # about 6 minutes on two cores

It writes `benchmarks/results/ids_deep_sea_diagnosis/diagnosis.json` and prints one line a run.
"""

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
SEEDS, SIZE, EPISODES, LAMBDAS = [2, 3, 4, 5], 10, 800, [5.0, 1.0]


def start_cell(res, lam_of_run: np.ndarray) -> list:
    "Per run, at the last snapshot, the start cell's μ, σ, I, ρ² and ratio for 'right' and 'left'."
    from uncertain_rl.agents.ids import IDSConfig, ids_regret

    right = int(res.snapshots.action_mapping[0, 0])  # the action that moves right in the start cell
    eps_info = IDSConfig().info_eps  # ε₂ of the registered default
    snap = res.snapshots.snapshots
    mu, sd, info = (np.asarray(snap[k])[:, -1, 0] for k in ('q_mean', 'q_std', 'ids_info'))
    out = []
    for i, lam in enumerate(lam_of_run):
        rho2 = sd[i] ** 2 / np.expm1(info[i] - eps_info)
        ratio = np.asarray(ids_regret(mu[i], sd[i], lam)) ** 2 / info[i]  # what IDS minimises
        row = {}
        for name, a in (('right', right), ('left', 1 - right)):
            row[name] = dict(mu=mu[i, a], sigma=sd[i, a], info=info[i, a], rho2=rho2[a], ratio=ratio[a])
        row['taken'] = 'right' if ratio[right] < ratio[1 - right] else 'left'
        out.append(
            {k: v if isinstance(v, str) else {n: round(float(x), 4) for n, x in v.items()} for k, v in row.items()}
        )
    return out


def main():
    from uncertain_rl.experiments import Experiment, run

    exp = Experiment(
        'ids',
        'deep_sea',
        episodes=EPISODES,
        size=SIZE,
        seeds=SEEDS,
        grid={'ids_lambda': LAMBDAS, 'ids_lambda_final': [1.0]},
        eval_every=0,
        snapshots=8,
        num_chunks=8,
        checkpoint_every=0,
    )
    res = run(exp)
    returns = np.nan_to_num(np.asarray(res.logs['episode_return']))
    treasures = (returns > 0.5).reshape(len(res.labels), -1, 100).sum(-1)
    cells = start_cell(res, np.asarray(res.logs['ids_lambda'])[:, EPISODES - 1])  # λ at the last episode
    rows = [
        dict(label=lab, treasures_per_100=t.tolist(), start_cell=c) for lab, t, c in zip(res.labels, treasures, cells)
    ]
    out = dict(seeds=SEEDS, size=SIZE, episodes=EPISODES, lambdas=LAMBDAS, rows=rows, seconds=res.run_seconds)
    path = ROOT / 'results' / 'ids_deep_sea_diagnosis' / 'diagnosis.json'
    path.write_text(json.dumps(out, indent=1) + '\n')
    for r in rows:
        c, lab = r['start_cell'], r['label']
        pair = lambda k, f: f"{c['right'][k]:{f}}/{c['left'][k]:{f}}"
        print(
            f"λ0 {lab['ids_lambda']:.0f} seed {lab['seed']}: treasures/100 {r['treasures_per_100']}; start cell R/L: "
            f"μ {pair('mu', '.2f')} σ {pair('sigma', '.3f')} ρ² {pair('rho2', '.3f')} ratio {pair('ratio', '.1f')} "
            f"-> {c['taken']}"
        )


if __name__ == '__main__':
    main()
