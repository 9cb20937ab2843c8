"""Statistic-greedy exploration with a categorical or a quantile model (Zanger et al. 2024, "Diverse Projection
Ensembles", Section 6.1 / Fig. 3, scaled down from the paper's Deep Sea 50 and 30 seeds to run on a CPU).

    nice -n 10 python benchmarks/pe_statistic_greedy.py --size 20 --episodes 200 --seeds 10

Reward-free Deep Sea (map 42): the learning target uses r = 0, so nothing but generalisation drives behaviour. One
distributional model, C51 (51 atoms on [-1, 1], cross-entropy to the categorical projection of the target) or QR
(51 quantiles, quantile-Huber loss with kappa = 1), on an MLP with one hidden layer of 128 ReLU (no prior), Adam 5e-4,
batch 128, replay 10,000, one SGD step per environment step once 128 transitions are stored, target synced every 4 SGD
steps, gamma = 0.99; the next-state action of the target is greedy by the mean. The agent acts with
a = argmax_a S[Z(s, a)] (random ties, epsilon = 0) for S in {mean, variance, skewness, kurtosis} of the predicted
distribution sum_j p_j delta(x_j). Metric: distinct cells visited after `--episodes` episodes, median [IQR] over seeds,
and a two-sided Mann-Whitney U test of C51 against QR per statistic. Each projection is one compiled call: a
`lax.scan` over all environment steps, vmapped over statistics (a traced index) and seeds; seed s starts from the
same network weights under every statistic and projection. Writes `table.md` and the bar chart to `--out`, and the bar
chart and a heat map of one seed's visit counts to `--figures`.
"""

import argparse
import os
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from scipy.stats import mannwhitneyu

from uncertain_rl.acting import random_argmax
from uncertain_rl.agents.pe_dqn import categorical_loss, member_distributions
from uncertain_rl.ensembles import make_ensemble, one_hot_index
from uncertain_rl.envs.deep_sea import DeepSea, render_deep_sea
from uncertain_rl.learning import fused_step, member_optimizer, periodic_sync
from uncertain_rl.projections import bellman_atoms, quantile_huber_loss
from uncertain_rl.replay import replay_add, replay_init, replay_sample

STATISTICS = ('mean', 'variance', 'skewness', 'kurtosis')
PROJECTIONS = ('C51', 'QR')
K, HIDDEN, LR, BATCH, CAPACITY, SYNC, GAMMA = 51, 128, 5e-4, 128, 10_000, 4, 0.99
SUPPORT = jnp.linspace(-1.0, 1.0, K)


def distribution(projection: str, out: jax.Array) -> tuple:
    "Atoms and probabilities `[A, K]` of the network output `[A, K]`: C51 logits or QR quantiles (one PE-DQN member)."
    atoms, probs = member_distributions(out[None], (projection == 'QR',), SUPPORT[None])
    return atoms[0], probs[0]


def moments(x: jax.Array, p: jax.Array) -> jax.Array:
    "Mean, variance, skewness, kurtosis of `sum_j p_j delta(x_j)` over the last axis, stacked first: `[4, ...]`."
    mu = (p * x).sum(-1)
    d = x - mu[..., None]
    var = (p * d**2).sum(-1)
    sd = jnp.sqrt(var) + 1e-8
    return jnp.stack([mu, var, (p * d**3).sum(-1) / sd**3, (p * d**4).sum(-1) / sd**4])


def sample_loss(projection: str, out, out_next, action, discount) -> jax.Array:
    "Loss of one transition, reward-free: target `0 + gamma * discount * Z(s', a')`, `a'` greedy by the mean."
    x_next, p_next = distribution(projection, jax.lax.stop_gradient(out_next))
    a_next = jnp.argmax((x_next * p_next).sum(-1))
    atoms = bellman_atoms(0.0, GAMMA * discount, x_next[a_next])
    if projection == 'C51':
        return categorical_loss(out[action], SUPPORT, atoms, p_next[a_next])
    return quantile_huber_loss(out[action], atoms, kappa=1.0)


def make_runs(env: DeepSea, projection: str, episodes: int):
    "A jitted `(statistics [S], keys [R]) -> visit counts [S, R, N*N]` training every (statistic, seed) pair."
    N, env_params = env.size, env.default_params
    net = make_ensemble(1, 2 * K, (HIDDEN,), index_input=True, input_size=N * N)
    apply = lambda params, s: net.apply(params, s)[0].reshape(2, K)
    batched = jax.vmap(apply, (None, 0))
    opt = member_optimizer(LR)

    def loss_fn(online, target, b):
        out, out_next = batched(online, b['s']), batched(target, b['s_next'])
        return jax.vmap(partial(sample_loss, projection))(out, out_next, b['a'], b['discount']).mean()

    def step(carry, key):
        stat, online, target, opt_state, buffer, updates, obs, env_state, visits = carry
        k_act, k_env, k_sample = jax.random.split(key, 3)
        s = one_hot_index(obs)  # the cell r * N + c (argmax of the one-hot obs)
        action = random_argmax(k_act, moments(*distribution(projection, apply(online, s)))[stat])
        obs, env_state, _, done, _, info = env.step(k_env, env_state, action, env_params)
        buffer = replay_add(
            buffer,
            dict(
                s=s, a=action, discount=1.0 - done.astype(jnp.float32), s_next=one_hot_index(info['final_observation'])
            ),
        )
        grads = jax.grad(loss_fn)(online, target, replay_sample(buffer, k_sample, BATCH))
        learn = buffer.size >= BATCH
        keep = lambda new, old: jax.tree.map(lambda n, o: jnp.where(learn, n, o), new, old)
        online, opt_state = keep(fused_step(opt, online, opt_state, grads), (online, opt_state))
        updates = updates + learn
        target = keep(periodic_sync(online, target, updates, SYNC), target)
        return (stat, online, target, opt_state, buffer, updates, obs, env_state, visits.at[s].add(1)), None

    def run(stat, key):
        k_init, k_reset, k_steps = jax.random.split(key, 3)
        online = net.init(k_init, jnp.int32(0))
        obs, env_state = env.reset(k_reset, env_params)
        buffer = replay_init(
            dict(s=jnp.int32(0), a=jnp.int32(0), discount=jnp.float32(0), s_next=jnp.int32(0)), CAPACITY
        )
        carry = (
            stat,
            online,
            online,
            opt.init(online),
            buffer,
            jnp.int32(0),
            obs,
            env_state,
            jnp.zeros(N * N, jnp.int32),
        )
        carry, _ = jax.lax.scan(step, carry, jax.random.split(k_steps, episodes * N))  # every episode has N steps
        return carry[-1]

    return jax.jit(jax.vmap(jax.vmap(run, (None, 0)), (0, None)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--size', type=int, default=20)
    p.add_argument('--episodes', type=int, default=200)
    p.add_argument('--seeds', type=int, default=10)
    p.add_argument('--out', default='benchmarks/results/pe_statistic_greedy')
    p.add_argument('--figures', default='nbs/figures', help='where the documentation figures go')
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.figures, exist_ok=True)
    env, N, t0 = DeepSea(args.size, mapping_seed=42), args.size, time.time()
    keys = jax.random.split(jax.random.PRNGKey(0), args.seeds)
    visits = {}
    for proj in PROJECTIONS:
        t = time.time()
        visits[proj] = np.asarray(make_runs(env, proj, args.episodes)(jnp.arange(len(STATISTICS)), keys))
        print(f'{proj}: {len(STATISTICS)} statistics x {args.seeds} seeds in {time.time() - t:.0f} s', flush=True)
    wall = time.time() - t0
    states = {proj: (v > 0).sum(-1) for proj, v in visits.items()}  # [statistic, seed]
    q = {proj: np.percentile(s, [25, 50, 75], axis=1) for proj, s in states.items()}  # [3, statistic]
    table = [
        f'Distinct cells visited after {args.episodes} episodes, Deep Sea N={N} ({N * (N + 1) // 2} reachable), '
        f'reward-free; median [q25, q75] over {args.seeds} seeds',
        '',
        '| statistic | C51 | QR | p (Mann-Whitney U) |',
        '|---|---:|---:|---:|',
    ]
    for i, stat in enumerate(STATISTICS):
        a, b = states['C51'][i], states['QR'][i]
        pval = 1.0 if np.all(a == a[0]) and np.all(b == a[0]) else mannwhitneyu(a, b, alternative='two-sided').pvalue
        cells = [f'{q[proj][1, i]:.0f} [{q[proj][0, i]:.0f}, {q[proj][2, i]:.0f}]' for proj in PROJECTIONS]
        table.append(f'| {stat} | ' + ' | '.join(cells) + f' | {pval:.2g} |')
    table += ['', f'Wall time {wall:.0f} s (compile included), {jax.devices()[0].platform}, {os.cpu_count()} CPUs.']
    print('\n'.join(table))
    with open(os.path.join(args.out, 'table.md'), 'w') as f:
        f.write('\n'.join(table) + '\n')

    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    x, w = np.arange(len(STATISTICS)), 0.38
    for j, proj in enumerate(PROJECTIONS):
        lo, med, hi = q[proj]
        ax.bar(x + (j - 0.5) * w, med, w, yerr=[med - lo, hi - med], capsize=3, label=proj)
    ax.axhline(N * (N + 1) / 2, color='grey', ls=':', lw=1, label='reachable')
    ax.set_xticks(x, STATISTICS)
    ax.set_ylabel(f'# states @ {args.episodes} ep.')
    ax.set_title(f'Statistic-greedy, Deep Sea {N}, median & IQR of {args.seeds} seeds', fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    for folder in (args.out, args.figures):
        fig.savefig(os.path.join(folder, 'pe_statistic_greedy.png'), dpi=160)

    fig, axes = plt.subplots(2, 2, figsize=(6.5, 6))
    for r, stat in enumerate(('mean', 'variance')):
        for c, proj in enumerate(PROJECTIONS):
            n = visits[proj][STATISTICS.index(stat), 0].reshape(N, N)
            ax = render_deep_sea(
                N,
                values=np.where(n > 0, np.log10(np.maximum(n, 1)), np.nan),
                ax=axes[r, c],
                title=f'{stat}-greedy {proj}: {(n > 0).sum()} cells',
            )
            ax.images[0].set_clim(0, np.log10(args.episodes))
    fig.suptitle('log10 visits per cell, seed 0 (white: never visited)', fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(args.figures, 'pe_statistic_greedy_visits.png'), dpi=160)
    print(
        f'wrote {args.out}/table.md, pe_statistic_greedy.png; {args.figures}/pe_statistic_greedy*.png; '
        f'wall time {wall:.0f} s'
    )


if __name__ == '__main__':
    main()
