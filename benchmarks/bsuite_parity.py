"""Parity with bsuite's own baselines: our DQN and Bootstrapped DQN against bsuite's `dqn` and `boot_dqn` on the
same Deep Sea map, many seeds each, with two-sample tests.

    python benchmarks/bsuite_parity.py --seeds 40 --episodes 500            # both agents, both implementations

Per run: did it ever find the treasure (Fisher's exact test on the fractions) and bsuite's "solved at" episode
(Mann-Whitney U on the runs that solved). bsuite's agents run one seed per process (numpy's global RNG seeded with
the seed, Haiku's with the same seed), two processes at a time; ours run all seeds in one vmapped, compiled call of
`experiments.run` (the registry's config for Deep Sea, no evaluations or snapshots).
bsuite's results are cached in `results/bsuite_parity/bsuite_<agent>.csv` (`--fresh` to re-run them).
Needs `pip install -e ".[dev,benchmark]"` (dm-haiku for bsuite's agents).
"""

import argparse
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).resolve().parent / 'results' / 'bsuite_parity'
AGENTS = ('dqn', 'boot_dqn')


def bsuite_run(args) -> dict:
    "One seed of bsuite's own agent on bsuite's own Deep Sea: per-episode total bad episodes and denoised return."
    agent_name, seed, size, mapping_seed, episodes = args
    import jax

    jax.config.update('jax_platforms', 'cpu')
    from bsuite.environments.deep_sea import DeepSea
    from bsuite.baselines.jax import dqn, boot_dqn

    np.random.seed(seed)
    env = DeepSea(size, mapping_seed=mapping_seed, seed=seed)
    make = dict(dqn=dqn.default_agent, boot_dqn=boot_dqn.default_agent)[agent_name]
    agent = make(env.observation_spec(), env.action_spec(), seed=seed)
    bad, found, start = [], [], time.perf_counter()
    for _ in range(episodes):
        ts = env.reset()
        while not ts.last():
            action = agent.select_action(ts)
            new_ts = env.step(action)
            agent.update(ts, action, new_ts)
            ts = new_ts
        info = env.bsuite_info()
        bad.append(info['total_bad_episodes'])
        found.append(info['denoised_return'])
    return dict(
        agent=agent_name, seed=seed, total_bad_episodes=bad, denoised_return=found, seconds=time.perf_counter() - start
    )


def bsuite_results(
    agent_name: str, seeds: int, size: int, mapping_seed: int, episodes: int, processes: int, fresh: bool = False
) -> pd.DataFrame:
    "Per seed and episode, bsuite's agent (cached on disk; only the missing seeds are run)."
    path = RESULTS / f'bsuite_{agent_name}_size{size}_map{mapping_seed}_ep{episodes}.csv'
    done = pd.read_csv(path) if path.exists() and not fresh else pd.DataFrame(columns=['seed'])
    missing = [s for s in range(seeds) if s not in set(done['seed'])]
    if missing:
        print(f'bsuite {agent_name}: running {len(missing)} seeds ({processes} processes)', flush=True)
        with Pool(processes) as pool:
            for r in pool.imap_unordered(bsuite_run, [(agent_name, s, size, mapping_seed, episodes) for s in missing]):
                rows = pd.DataFrame(
                    dict(
                        seed=r['seed'],
                        episode=np.arange(1, episodes + 1),
                        total_bad_episodes=r['total_bad_episodes'],
                        denoised_return=r['denoised_return'],
                        seconds=r['seconds'],
                    )
                )
                done = pd.concat([done, rows], ignore_index=True) if len(done) else rows
                RESULTS.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix('.tmp')
                done.sort_values(['seed', 'episode']).to_csv(tmp, index=False)
                tmp.replace(path)
                print(f"  seed {r['seed']}: {r['seconds']:.0f} s", flush=True)
    return done[done['seed'] < seeds]


def per_seed(total_bad: np.ndarray, denoised: np.ndarray) -> dict:
    "Found the treasure, first treasure episode, bsuite's solved-at episode (0: never), per seed `[S, episodes]`."
    from uncertain_rl.metrics import solved_at, first_treasure_episode

    first = first_treasure_episode(denoised)
    return dict(found=first > 0, first_treasure=first, solved_at=solved_at(total_bad))


def our_results(agent_name: str, seeds: int, size: int, mapping_seed: int, episodes: int, **overrides) -> dict:
    "Our agent through `experiments.run`, every seed in one vmapped run (keys PRNGKey(0..seeds-1), as the CLI's)."
    from uncertain_rl.experiments import Experiment, run

    res = run(
        Experiment(
            agent_name,
            'deep_sea',
            episodes=episodes,
            size=size,
            mapping_seed=mapping_seed,
            seeds=seeds,
            overrides=overrides,
            eval_every=0,
            snapshots=0,
            num_chunks=10,
        )
    )
    print(f"ours {agent_name} {overrides or ''}: {res.run_seconds:.0f} s for {seeds} seeds", flush=True)
    return per_seed(res.logs['total_bad_episodes'], res.logs['denoised_return'])


def compare(ours: dict, theirs: dict) -> dict:
    "Fisher's exact test on the fractions that found the treasure, Mann-Whitney U on solved-at (runs that solved)."
    from scipy import stats

    table = [
        [int(ours['found'].sum()), int((~ours['found']).sum())],
        [int(theirs['found'].sum()), int((~theirs['found']).sum())],
    ]
    fisher = stats.fisher_exact(table).pvalue
    a, b = ours['solved_at'][ours['solved_at'] > 0], theirs['solved_at'][theirs['solved_at'] > 0]
    mw = stats.mannwhitneyu(a, b).pvalue if len(a) and len(b) else float('nan')
    return dict(fisher_p=fisher, mannwhitney_p=mw)


def describe(r: dict) -> dict:
    "Counts and quartiles of one implementation's per-seed results."
    s = r['solved_at'][r['solved_at'] > 0]
    q = np.percentile(s, [25, 50, 75]) if len(s) else [np.nan] * 3
    return dict(
        found=f"{int(r['found'].sum())}/{len(r['found'])}",
        solved=f"{len(s)}/{len(r['found'])}",
        solved_at=f"{q[1]:.0f} [{q[0]:.0f}, {q[2]:.0f}]" if len(s) else '-',
    )


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--agents', nargs='+', default=list(AGENTS), choices=AGENTS)
    p.add_argument('--seeds', type=int, default=40)
    p.add_argument('--episodes', type=int, default=500)
    p.add_argument('--size', type=int, default=10)
    p.add_argument('--mapping-seed', type=int, default=42)
    p.add_argument('--processes', type=int, default=2)
    p.add_argument('--fresh', action='store_true', help="re-run bsuite's agents instead of reading the cache")
    p.add_argument('--bsuite-only', action='store_true', help="only run (and cache) bsuite's agents")
    p.add_argument(
        '--before',
        action='store_true',
        help="also run ours as it was before the parity fixes (flax's init, acting with current parameters)",
    )
    a = p.parse_args()
    theirs = {}
    for name in a.agents:
        df = bsuite_results(name, a.seeds, a.size, a.mapping_seed, a.episodes, a.processes, a.fresh)
        wide = lambda col: df.pivot(index='seed', columns='episode', values=col).to_numpy()
        theirs[name] = per_seed(wide('total_bad_episodes'), wide('denoised_return'))
    if a.bsuite_only:
        raise SystemExit(0)
    variants = [('ours', {})] + (
        [('ours, before the fixes', dict(kernel_init='lecun_normal', acting_params='current'))] if a.before else []
    )
    lines = [
        f"Deep Sea {a.size} (map {a.mapping_seed}), {a.episodes} episodes, {a.seeds} seeds per row. found: runs "
        "that reached the treasure; solved: bsuite's rule; solved at: median [quartiles] over the runs that "
        "solved; p: Fisher's exact test (found) and Mann-Whitney U (solved at) against bsuite's agent.",
        '',
        '| agent | implementation | found | solved | solved at | p (found) | p (solved at) |',
        '|---|---|---:|---:|---:|---:|---:|',
    ]
    rows = []
    for name in a.agents:
        d = describe(theirs[name])
        lines.append(f"| {name} | bsuite | {d['found']} | {d['solved']} | {d['solved_at']} | | |")
        for label, overrides in variants:
            ours = our_results(name, a.seeds, a.size, a.mapping_seed, a.episodes, **overrides)
            d, t = describe(ours), compare(ours, theirs[name])
            lines.append(
                f"| {name} | {label} | {d['found']} | {d['solved']} | {d['solved_at']} | "
                f"{t['fisher_p']:.3g} | {t['mannwhitney_p']:.3g} |"
            )
            rows += [
                dict(
                    agent=name,
                    implementation=label,
                    seed=s,
                    found=bool(ours['found'][s]),
                    first_treasure=int(ours['first_treasure'][s]),
                    solved_at=int(ours['solved_at'][s]),
                )
                for s in range(a.seeds)
            ]
        rows += [
            dict(
                agent=name,
                implementation='bsuite',
                seed=s,
                found=bool(theirs[name]['found'][s]),
                first_treasure=int(theirs[name]['first_treasure'][s]),
                solved_at=int(theirs[name]['solved_at'][s]),
            )
            for s in range(a.seeds)
        ]
    RESULTS.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(RESULTS / 'per_seed.csv', index=False)
    (RESULTS / 'summary.md').write_text('\n'.join(lines) + '\n')
    print('\n'.join(lines))
