"""R2 with learned novelty: E-AZ, AZ and AZ + UBE, each tabular (exact counts, tables) and learned (MLP heads for r, v,
u and π, RND novelty), on Deep Sea 20 for 20,000 environment steps, seeds 0-9 (`PRNGKey(i)`), action map 42.

Each agent is one compiled run with the seeds vmapped; its result (first-treasure and solved-at episode per seed,
seconds) goes to `--out/<agent>.json` as it finishes (temporary file, then rename), so a stopped run resumes.
`--report` prints the table: found and solved counts, 25-50-75th percentiles (a run that never got there ranks
after all others), Fisher's exact test on solved counts and Mann-Whitney on solved-at for the comparisons the issue
asks about (learned E-AZ against learned AZ and AZ + UBE) and for learned against tabular.

    python benchmarks/e_az_net_deep_sea.py                      # every agent not yet done (2 CPU cores: ~25 min)
    python benchmarks/e_az_net_deep_sea.py --quick --out /tmp/q # a dry run: Deep Sea 6, 2 seeds, 600 steps
    python benchmarks/e_az_net_deep_sea.py --report
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / 'results' / 'e_az_net_deep_sea'
AGENTS = ('e_az_net', 'az_net', 'az_ube_net', 'e_az', 'az', 'az_ube')
LABELS = {
    'e_az': 'E-AZ (tables, counts)',
    'az': 'AZ (tables)',
    'az_ube': 'AZ + UBE (tables, counts)',
    'e_az_net': 'E-AZ (MLP heads, RND)',
    'az_net': 'AZ (MLP heads)',
    'az_ube_net': 'AZ + UBE (MLP heads, RND)',
}
COMPARISONS = (('e_az_net', 'az_net'), ('e_az_net', 'az_ube_net'), ('e_az_net', 'e_az'), ('az_ube_net', 'az_ube'))


def run_agent(name: str, size: int, steps: int, seeds: int) -> dict:
    "One compiled run of `name` over `seeds` vmapped seeds; first treasure and solved-at per seed (0: never)."
    import jax
    from uncertain_rl.base import gymnax_spec
    from uncertain_rl.envs.deep_sea import DeepSea
    from uncertain_rl.loops import TrainConfig, run_chunked, train
    from uncertain_rl.metrics import first_treasure_episode, solved_at
    from uncertain_rl import runtime
    from uncertain_rl.registry import agent_config, make_agent

    runtime.setup()  # as experiments.run does (Threefry written out, the compilation cache)
    env = DeepSea(size, mapping_seed=42)
    agent = make_agent(name, agent_config(name), gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=steps, max_episodes=steps // size))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(seeds))
    start = time.perf_counter()
    res = run_chunked(run, keys, num_chunks=4, progress=False)
    return dict(
        agent=name,
        size=size,
        steps=steps,
        episodes=steps // size,
        seeds=list(range(seeds)),
        first_treasure=first_treasure_episode(res.logs['denoised_return']).tolist(),
        solved_at=solved_at(res.logs['total_bad_episodes']).tolist(),
        seconds=time.perf_counter() - start,
        compile_seconds=res.compile_seconds,
    )


def censored(x, budget: int) -> np.ndarray:
    "Episodes with the runs that never got there at the budget + 1 (ranked after all others)."
    x = np.asarray(x, float)
    return np.where(x > 0, x, budget + 1)


def quartiles(x, budget: int) -> str:
    q = np.percentile(censored(x, budget), [25, 50, 75], method='nearest')
    return ' – '.join('never' if v > budget else f'{v:.0f}' for v in q)


def report(out: Path) -> str:
    from scipy.stats import fisher_exact, mannwhitneyu

    res = {a: json.loads((out / f'{a}.json').read_text()) for a in AGENTS if (out / f'{a}.json').exists()}
    if not res:
        return 'no results yet'
    r0 = next(iter(res.values()))
    lines = [
        f"Deep Sea {r0['size']}, {r0['steps']:,} steps ({r0['episodes']:,} episodes), seeds 0-{len(r0['seeds']) - 1}, "
        'map 42 (episodes; never = ranked last)',
        '',
        '| agent | found | first treasure (25 – 50 – 75th) | solved | solved-at (25 – 50 – 75th) | seconds |',
        '|---|---:|---:|---:|---:|---:|',
    ]
    for a, r in res.items():
        f, s, b = np.asarray(r['first_treasure']), np.asarray(r['solved_at']), r['episodes']
        lines.append(
            f"| {LABELS[a]} | {(f > 0).sum()}/{len(f)} | {quartiles(f, b)} | {(s > 0).sum()}/{len(s)} | "
            f"{quartiles(s, b)} | {r['seconds']:.0f} |"
        )
    lines += [
        '',
        '| comparison | Fisher p (solved) | Mann-Whitney p (solved-at) | Mann-Whitney p (first treasure) |',
        '|---|---:|---:|---:|',
    ]
    for a, b in COMPARISONS:
        if a not in res or b not in res:
            continue
        sa, sb = np.asarray(res[a]['solved_at']), np.asarray(res[b]['solved_at'])
        fa, fb = np.asarray(res[a]['first_treasure']), np.asarray(res[b]['first_treasure'])
        n = res[a]['episodes']
        fisher = fisher_exact([[(sa > 0).sum(), (sa == 0).sum()], [(sb > 0).sum(), (sb == 0).sum()]])[1]
        mw = lambda x, y: mannwhitneyu(censored(x, n), censored(y, n)).pvalue
        lines.append(f'| {LABELS[a]} vs {LABELS[b]} | {fisher:.3g} | {mw(sa, sb):.3g} | {mw(fa, fb):.3g} |')
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=str(OUT))
    ap.add_argument('--agents', nargs='*', default=list(AGENTS), choices=AGENTS)
    ap.add_argument('--size', type=int, default=20)
    ap.add_argument('--steps', type=int, default=20_000)
    ap.add_argument('--seeds', type=int, default=10)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--report', action='store_true')
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.report:
        text = report(out)
        (out / 'table.md').write_text(text + '\n')
        return print(text)
    size, steps, seeds = (6, 600, 2) if args.quick else (args.size, args.steps, args.seeds)
    for a in args.agents:
        if (out / f'{a}.json').exists():
            continue
        r = run_agent(a, size, steps, seeds)
        tmp = out / f'{a}.json.tmp'
        tmp.write_text(json.dumps(r))
        os.replace(tmp, out / f'{a}.json')
        print(f"{a}: {r['seconds']:.0f} s, first {r['first_treasure']}, solved {r['solved_at']}", flush=True)


if __name__ == '__main__':
    main()
