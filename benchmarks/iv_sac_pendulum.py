"""Our small-scale Pendulum target for the IV-RL paper (its continuous-control experiments, scaled to a CPU): SAC,
ensemble SAC and IV-SAC on gymnax's Pendulum-v1 and on its reward-noise variant (N(0, 1) added to every reward),
20,000 environment steps, greedy evaluations every 1,000.

    python benchmarks/iv_sac_pendulum.py --seeds 3              # about 25 minutes on 2 CPU cores
    python benchmarks/iv_sac_pendulum.py --plot-only            # table and figure from the saved runs
    python benchmarks/iv_sac_pendulum.py --seeds 2 --first-seed 3 --envs pendulum_noise   # two more seeds, added

Every (agent, environment) pair is one compiled run with all seeds vmapped (`experiments.run`), the registry's defaults
(our settings: batch 256, N = 5, p_m = 1, lambda_UCB = 1, rho_MEBS = 0.9, lambda = 5; 2 x 64 networks,
Adam 1e-3, learning from 1,000 steps). Seeds are 0 .. seeds-1 (`jax.random.PRNGKey(seed)`).

Metrics, per seed, then mean and standard error over seeds:
- final greedy return: the mean of the last evaluation's 5 greedy episodes (the ensemble-mean action); for
  `pendulum_noise` also on the clean Pendulum (20 episodes of the final agents), since the noisy return adds
  N(0, 200) per episode;
- AUC: the area under the greedy-evaluation curve, as the mean greedy return over the 20 evaluations (steps
  1,000 .. 20,000), so it is on the return's scale.
Soft checks: every ensemble method's final greedy return >= -250; IV-SAC's AUC >= ensemble SAC's on
`pendulum_noise`. Writes `runs.npz` files and `summary.md` to `--out`, the figure to `nbs/figures/iv_sac_pendulum.png`.
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from uncertain_rl.base import gymnax_spec
from uncertain_rl.experiments import Experiment, run
from uncertain_rl.loops import greedy_returns
from uncertain_rl.registry import make_agent, make_env

AGENTS = ('sac', 'ensemble_sac', 'iv_sac')
ENVS = ('pendulum', 'pendulum_noise')
LABELS = {'sac': 'SAC', 'ensemble_sac': 'ensemble SAC', 'iv_sac': 'IV-SAC'}
ROOT = Path(__file__).resolve().parent.parent


def run_pair(agent_name, env_name, seeds, steps, eval_every, first_seed=0):
    "All seeds of one agent on one environment: evaluations, logs of a few diagnostics, clean final returns, timings."
    res = run(
        Experiment(
            agent_name,
            env_name,
            steps=steps,
            seeds=seeds,
            first_seed=first_seed,
            eval_every=eval_every,
            eval_episodes=5,
            num_chunks=steps // eval_every,
        )
    )
    agent = make_agent(agent_name, res.config, gymnax_spec(make_env(env_name, 1)))  # the trained agent's functions
    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(first_seed, first_seed + seeds))
    clean_env = make_env('pendulum', 1)
    clean = jax.jit(jax.vmap(lambda s, k: greedy_returns(clean_env, agent, s, k, 20, 200)))(
        res.agent_state, jax.vmap(lambda k: jax.random.fold_in(k, 7))(keys)
    )
    out = dict(
        step=np.asarray(res.evals['step'][0]),
        greedy=np.asarray(res.evals['greedy_return']),
        clean_final=np.asarray(clean).mean(1),
        compile_seconds=res.compile_seconds,
        run_seconds=res.run_seconds,
    )
    for k in ('episode_return', 'target_var', 'ebs', 'alpha', 'entropy'):
        if k in res.logs:
            out[k] = res.logs[k][:, : steps // 200]  # Pendulum's episodes: 200 steps
    return out


def mean_se(x):
    x = np.asarray(x, float)
    return x.mean(), (x.std(ddof=1) / np.sqrt(len(x)) if len(x) > 1 else float('nan'))


def summarise(runs):
    "Rows of the table, and the soft checks."
    rows, checks = [], []
    for env_name in ENVS:
        for agent_name in AGENTS:
            r = runs.get((agent_name, env_name))
            if r is None:
                continue
            final, auc = r['greedy'][:, -1], r['greedy'].mean(1)
            rows.append(
                dict(
                    env=env_name,
                    agent=agent_name,
                    seeds=len(final),
                    final=mean_se(final),
                    auc=mean_se(auc),
                    clean=mean_se(r['clean_final']),
                    per_seed=final.round(0).tolist(),
                    seconds=r['run_seconds'],
                    compile=r['compile_seconds'],
                )
            )
            if agent_name != 'sac':
                ok = (final >= -250).sum()
                checks.append(f"{LABELS[agent_name]} on {env_name}: final greedy >= -250 in {ok} of {len(final)} seeds")
    a, b = runs.get(('iv_sac', 'pendulum_noise')), runs.get(('ensemble_sac', 'pendulum_noise'))
    if a is not None and b is not None:
        ia, ib = a['greedy'].mean(1).mean(), b['greedy'].mean(1).mean()
        checks.append(
            f"pendulum_noise AUC: IV-SAC {ia:.1f} vs ensemble SAC {ib:.1f}: "
            f"{'IV-SAC >= ensemble SAC' if ia >= ib else 'IV-SAC < ensemble SAC'}"
        )
    return rows, checks


def table(rows):
    f = lambda ms: f"{ms[0]:.1f} ± {ms[1]:.1f}"
    lines = [
        '| env | agent | seeds | final greedy return | AUC (mean greedy return) | final, clean Pendulum | '
        'final per seed | run s (compile s) |',
        '|---|---|---:|---:|---:|---:|---|---:|',
    ]
    for r in rows:
        lines.append(
            f"| {r['env']} | {LABELS[r['agent']]} | {r['seeds']} | {f(r['final'])} | {f(r['auc'])} | "
            f"{f(r['clean'])} | {r['per_seed']} | {r['seconds']:.0f} ({r['compile']:.0f}) |"
        )
    return '\n'.join(lines)


def plot(runs, path):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    colors = {'sac': 'tab:gray', 'ensemble_sac': 'tab:blue', 'iv_sac': 'tab:red'}
    for ax, env_name in zip(axes, ENVS):
        for agent_name in AGENTS:
            r = runs.get((agent_name, env_name))
            if r is None:
                continue
            m = r['greedy'].mean(0)
            se = r['greedy'].std(0, ddof=1) / np.sqrt(len(r['greedy'])) if len(r['greedy']) > 1 else 0 * m
            ax.plot(r['step'], m, color=colors[agent_name], label=f"{LABELS[agent_name]} ({len(r['greedy'])} seeds)")
            ax.fill_between(r['step'], m - se, m + se, color=colors[agent_name], alpha=0.2)
        ax.axhline(-250, color='k', lw=0.6, ls=':')
        ax.set_title(env_name)
        ax.set_xlabel('environment step')
    axes[0].set_ylabel('greedy return (mean ± s.e. over seeds)')
    for ax in axes:
        ax.legend(fontsize=8, loc='lower right')
    fig.tight_layout()
    fig.savefig(path, dpi=160)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--seeds', type=int, default=3)
    p.add_argument(
        '--first-seed', type=int, default=0, help='seeds first-seed .. first-seed + seeds - 1 (adds to saved runs)'
    )
    p.add_argument('--steps', type=int, default=20_000)
    p.add_argument('--eval-every', type=int, default=1000)
    p.add_argument('--agents', nargs='+', default=list(AGENTS))
    p.add_argument('--envs', nargs='+', default=list(ENVS))
    p.add_argument('--out', default=str(ROOT / 'benchmarks' / 'results' / 'iv_sac_pendulum'))
    p.add_argument('--figure', default=str(ROOT / 'nbs' / 'figures' / 'iv_sac_pendulum.png'))
    p.add_argument('--plot-only', action='store_true')
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.plot_only:
        for env_name in args.envs:
            for agent_name in args.agents:
                start = time.perf_counter()
                r = run_pair(agent_name, env_name, args.seeds, args.steps, args.eval_every, args.first_seed)
                r['seeds'] = np.arange(args.first_seed, args.first_seed + args.seeds)
                suffix = f'-from{args.first_seed}' if args.first_seed else ''
                np.savez(out / f'{agent_name}-{env_name}{suffix}.npz', **r)
                print(
                    f"{agent_name} on {env_name}: final greedy {r['greedy'][:, -1].round(1)}, "
                    f"AUC {r['greedy'].mean(1).round(1)}, {time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    runs = {}
    for env_name in ENVS:
        for agent_name in AGENTS:
            files = [out / f'{agent_name}-{env_name}.npz', *sorted(out.glob(f'{agent_name}-{env_name}-from*.npz'))]
            parts = [dict(np.load(f)) for f in files if f.exists()]  # seeds 0.., then the added ones
            if not parts:
                continue
            runs[(agent_name, env_name)] = {
                k: (np.concatenate([p[k] for p in parts]) if np.ndim(parts[0][k]) and k != 'step' else parts[0][k])
                for k in parts[0]
                if all(k in p for p in parts)
            }
    rows, checks = summarise(runs)
    text = table(rows) + '\n\n' + '\n'.join(f'- {c}' for c in checks)
    print(text)
    meta = dict(
        jax=jax.__version__,
        machine=platform.machine(),
        cpus=os.cpu_count(),
        steps=args.steps,
        eval_every=args.eval_every,
    )
    (out / 'summary.md').write_text(f"# IV-SAC on Pendulum\n\n{text}\n\n```\n{json.dumps(meta)}\n```\n")
    plot(runs, args.figure)


if __name__ == '__main__':
    main()
