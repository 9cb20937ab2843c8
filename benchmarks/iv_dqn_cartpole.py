"""R2 / R3 of the IV-RL paper at small scale: IV-DQN, its ablations, Bootstrapped DQN and DQN on cartpole_noise
(scale 1), and on MountainCar-v0 (`--env mountaincar`, the negative control; settings below).

Every agent runs with the IV-RL authors' bsuite settings (the registry's cartpole_noise preset: 5 members, masks 0.5,
ε = 0.05, learning every 2 steps, target copy every 50 steps, clip 5, 4-step returns), `--seeds` vmapped seeds in one
`experiments.run` (keys PRNGKey(seed)), a budget of `--steps` environment steps of which the first `--episodes`
episodes are reported. Reported per variant:
the paper's Table 1 metric, episodes until the 100-episode moving average of the *training* return reaches 750
(25th / 50th / 75th percentiles over seeds, "max" where not reached within the logged episodes), how many seeds
solved, the best 100-episode average, the mean of the last 5 greedy evaluations (the ensemble's vote, 5 episodes
every `--eval-every` steps) and the mean target variance per learning step (App. E: var-ensemble against sampled
ensemble; the loop averages metrics over all steps of an episode and learning happens on every other step, so the
logged per-episode mean is doubled). Results go to a JSON file after each variant; `--plot` draws the figure.

    python benchmarks/iv_dqn_cartpole.py --seeds 5 --steps 250000            # the table in nbs/18b
    python benchmarks/iv_dqn_cartpole.py --env mountaincar --seeds 5 --steps 60000 --eval-every 6000
    python benchmarks/iv_dqn_cartpole.py --seeds 3 --steps 150000 --figure none \
        --variants "BIV only (λ = 0)" "var-ensemble LA only (uniform weights)" "IV-DQN, sampled-ensemble variance" \
        --out benchmarks/results/iv_dqn_cartpole_ablations.json                   # the ablations (Fig. 3, App. E)
    python benchmarks/iv_dqn_cartpole.py --plot                               # the figure from the JSON
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from uncertain_rl.experiments import Experiment, run
from uncertain_rl.metrics import moving_average_solved_at, best_moving_average

# MountainCar (R3, the negative control: exploration-bound, no reward noise): the registry's mountaincar presets,
# the paper's per-environment settings (see IV_RL_MOUNTAINCAR in nbs/71_agents.iv_dqn.ipynb for ε and the target copy).
R3_VARIANTS = {'IV-DQN': ('iv_dqn', {}), 'Bootstrapped DQN': ('boot_dqn', {}), 'DQN': ('dqn', {})}
VARIANTS = {  # name -> (agent, config overrides)
    'IV-DQN': ('iv_dqn', {}),
    'BIV only (λ = 0)': ('iv_dqn', dict(la_weight=0.0)),
    'var-ensemble LA only (uniform weights)': ('iv_dqn', dict(weighting='uniform')),
    'IV-DQN, sampled-ensemble variance': ('iv_dqn', dict(variance='sampled')),
    'Bootstrapped DQN': ('boot_dqn', {}),
    'DQN': ('dqn', {}),
}
MAIN = ('IV-DQN', 'Bootstrapped DQN', 'DQN')
ENVS = {
    'cartpole_noise': (VARIANTS, 750.0, 'iv_dqn_cartpole'),
    'mountaincar': (R3_VARIANTS, -150.0, 'iv_dqn_mountaincar'),
}
ROOT = Path(__file__).resolve().parent


def run_variant(env_name: str, name: str, seeds: int, steps: int, episodes: int, eval_every: int) -> dict:
    variants, solved_score, _ = ENVS[env_name]
    agent_name, overrides = variants[name]
    exp = Experiment(
        agent_name, env_name, steps=steps, seeds=seeds, overrides=overrides, eval_every=eval_every, eval_episodes=5
    )
    start = time.perf_counter()
    res = run(exp)
    logs = {k: v[:, :episodes] for k, v in res.logs.items()}  # the first `episodes` episodes
    ret = logs['episode_return']
    tv = logs['target_var'] if 'target_var' in logs else None
    return dict(
        agent=agent_name,
        overrides=overrides,
        seeds=seeds,
        steps=steps,
        episodes=episodes,
        seconds=time.perf_counter() - start,
        returns=np.where(np.isnan(ret), None, ret).tolist(),
        solved_at=moving_average_solved_at(ret, solved_score).tolist(),
        best_ma100=[None if np.isnan(x) else float(x) for x in best_moving_average(ret)],
        eval_step=np.asarray(res.evals['step'][0]).tolist(),
        greedy=np.asarray(res.evals['greedy_return']).tolist(),
        target_var=None if tv is None else float(2 * np.nanmean(tv[:, 1:])),
    )  # episode 1 holds the warm-up


def percentiles(solved: list, episodes: int) -> str:
    "25th-50th-75th percentiles (nearest rank) of episodes to solve; unsolved runs count as beyond the budget, 'max'."
    x = np.sort([s if s else np.inf for s in solved])
    pick = lambda q: x[int(round(q / 100 * (len(x) - 1)))]
    return ' – '.join('max' if not np.isfinite(pick(q)) else f'{pick(q):.0f}' for q in (25, 50, 75))


def table(results: dict, score: float) -> str:
    rows = [
        f'| variant | episodes to MA100 ≥ {score:g} (25 – 50 – 75th) | solved | best MA100 per seed '
        '| greedy (last 5 evals) | target var | run s |',
        '|---|---|---|---|---|---|---|',
    ]
    for name, r in results.items():
        solved = sum(1 for s in r['solved_at'] if s)
        best = ', '.join('-' if b is None else f'{b:.0f}' for b in r['best_ma100'])
        greedy = np.mean(np.asarray(r['greedy'])[:, -5:], 1)
        tv = '-' if r['target_var'] is None else f"{r['target_var']:.2f}"
        rows.append(
            f"| {name} | {percentiles(r['solved_at'], r['episodes'])} | {solved}/{r['seeds']} | {best} | "
            f"{', '.join(f'{g:.0f}' for g in greedy)} | {tv} | {r['seconds']:.0f} |"
        )
    return '\n'.join(rows)


def mann_whitney(results: dict, a: str = 'IV-DQN', b: str = 'Bootstrapped DQN') -> str:
    "Mann-Whitney U (two-sided) on episodes to solve, `a` against `b`; an unsolved run ranks after every solved one."
    from scipy.stats import mannwhitneyu

    if a not in results or b not in results:
        return ''
    x, y = ([s if s else np.inf for s in results[k]['solved_at']] for k in (a, b))
    return f'Mann-Whitney U, {a} against {b} (episodes to solve, unsolved last): p = {mannwhitneyu(x, y).pvalue:.3g}'


def plot(results: dict, path: Path, env_name: str, score: float) -> None:
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    for name, r in results.items():
        if name not in MAIN and not name.startswith(('BIV', 'var-')):
            continue
        ret = np.array([[np.nan if v is None else v for v in s] for s in r['returns']], float)
        ma = np.array([[np.nanmean(s[max(0, e - 99) : e + 1]) for e in range(len(s))] for s in ret])
        line = a.plot(np.arange(1, ma.shape[1] + 1), np.nanmedian(ma, 0), label=name, lw=2 if name in MAIN else 1)[0]
        b.plot(np.array(r['eval_step']) / 1000, np.median(r['greedy'], 0), color=line.get_color(), marker='.')
    a.axhline(score, color='k', ls=':', lw=1)
    a.set(xlabel='episode', ylabel='training return, MA100 (median over seeds)', title=env_name)
    b.set(
        xlabel='environment steps (thousands)', ylabel='greedy return (median over seeds)', title='greedy evaluations'
    )
    a.legend(fontsize=7)
    fig.tight_layout()
    tmp = path.with_suffix('.tmp.png')
    fig.savefig(tmp, dpi=220)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seeds', type=int, default=5)
    ap.add_argument('--steps', type=int, default=250_000)
    ap.add_argument('--episodes', type=int, default=300)
    ap.add_argument('--eval-every', type=int, default=10_000)
    ap.add_argument('--env', default='cartpole_noise', choices=list(ENVS))
    ap.add_argument('--variants', nargs='*', default=None, help=f"default: all ({', '.join(VARIANTS)})")
    ap.add_argument('--out', default=None, help='JSON results (default: benchmarks/results/<figure name>.json)')
    ap.add_argument(
        '--figure', default=None, help='figure name under nbs/figures (default: <env stem>.png; none: no figure)'
    )
    ap.add_argument('--plot', action='store_true', help='only draw the figure and table from --out')
    args = ap.parse_args()
    variants, score, stem = ENVS[args.env]
    bad = set(args.variants or ()) - set(variants)
    if bad:
        ap.error(f"--variants: unknown {sorted(bad)}; allowed: {list(variants)}")
    out = Path(args.out or ROOT / 'results' / f'{stem}.json')
    results = json.loads(out.read_text()) if out.exists() else {}
    if not args.plot:
        for name in args.variants or variants:
            results[name] = run_variant(args.env, name, args.seeds, args.steps, args.episodes, args.eval_every)
            tmp = out.with_suffix('.tmp')
            tmp.write_text(json.dumps(results))
            os.replace(tmp, out)
            print(f'{name}: solved at {results[name]["solved_at"]}, {results[name]["seconds"]:.0f} s', flush=True)
    print(table(results, score))
    print(mann_whitney(results))
    if args.figure != 'none':
        plot(results, ROOT.parent / 'nbs' / 'figures' / (args.figure or f'{stem}.png'), args.env, score)


if __name__ == '__main__':
    main()
