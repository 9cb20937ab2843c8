"""PE-DQN's ablations with equal schedules, budgets and priors (R5), and the cause of its late first treasure (R4).

Stages, each a list of jobs (one compiled `experiments.sweep` per job, the grid's settings x seeds vmapped),
each job's result written to `--out/<job>.json` as it finishes (atomically), so a run can stop and resume:

* **ablations** (seeds 0-9: keys `split(PRNGKey(0), 10)`, Deep Sea 12, map 42, 1,000 episodes each): PE-DQN,
  β = 0, [Ind.], [C51/C51] and [QR/QR], every one with the *same* β schedule fixed in episodes (5 -> 1 over the
  first 333 episodes; β = 0 keeps 0) and under two prior regimes, as one grid: `paper` (Table 4: scale 20 on a QR
  value member, none on a C51 member, so the priors follow the member kind) and `none` (no prior on any value
  member: the only regime in which every variant carries the same prior; a C51 member's prior is pre-softmax, in
  logits, so no scale makes it equal to a QR member's prior, which is in return units).
* **select** (held-out seeds 1000-1009: keys `PRNGKey(seed)`, Deep Sea 10 and 14, 1,000 episodes): the bonus scale's
  suspects, exact against projected w_1 (two compiles) x QR prior scale {0, 5, 20} x β {1, 2, 5} x β_final {0.5, 1}
  (β decays over the first 333 episodes), and Bootstrapped DQN (bsuite's, prior scale 5, as in R4) beside it.
  **The rule that picks the default, declared before the runs**: the setting with the smallest sum over the two
  sizes of the median solved-at episode (a run that does not solve counts as the budget, 1,000); ties go to the
  setting closest to the paper's (β 5, prior 20, exact).
* **test** (seeds 0-9 as above, Deep Sea 8, 10, 12, 14 and 20, 1,000 episodes): the same grid and Bootstrapped DQN,
  so that the chosen setting and the paper's can be reported on the tables' seeds whatever the selection picks
  (the selection reads only the `select` jobs).
* **cause** (the CPU-sized version of `select`; held-out seeds 1000-1009, Deep Sea 10, 400 episodes): a 2 x 2 x 2
  factorial, exact against projected w_1 x QR prior {5, 20} x β {1, 5} (→ 1 over 333 episodes), and Bootstrapped DQN.
  Its rule, declared before it ran: the earliest median first treasure (never = the budget + 1), ties to more runs
  solved, then to the setting nearest the paper's. **confirm** then runs the paper's setting and the pick (`CHOSEN`,
  filled in by hand from `--report`) on seeds 0-9 at Deep Sea 10 and 14, 1,000 episodes.
* **bonus** (as `cause`: held-out seeds 1000-1009, Deep Sea 10, 400 episodes, the paper's setting): the bonus
  members' C51 support [0, bonus_max] at 1 and 16 beside the default 4 (the `cause` job's exact/20/5 row). At
  initialisation the C51 bonus member's mean is bonus_max / 2 and the QR one's about 0, so the bonus starts near
  bonus_max / 4 everywhere, while its targets on visited pairs (w_1 of about 1.8 summed over the rest of the episode)
  exceed it: this asks whether the bonus's starting level against its targets is what delays the first treasure.

    python benchmarks/pe_dqn_ablations.py --workers 6                     # every job not yet done (a GPU: ~8 min)
    python benchmarks/pe_dqn_ablations.py --quick --workers 2 --out /tmp/q # a dry run: 2 seeds, 12 episodes
    python benchmarks/pe_dqn_ablations.py --report                        # tables, tests and the selection
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
OUT = ROOT / 'results' / 'pe_dqn_ablations'
EPISODES, DECAY = 1000, 333
TEST_SEEDS, HELD_OUT = list(range(10)), list(range(1000, 1010))
ABLATIONS = ('pe_dqn', 'beta0', 'ind', 'c51c51', 'qrqr')
LABELS = {'pe_dqn': 'PE-DQN', 'beta0': 'PE-DQN, β = 0', 'ind': '[Ind.]', 'c51c51': '[C51/C51]', 'qrqr': '[QR/QR]'}
REGIMES = {'paper': dict(prior_scale=20.0, prior_scale_c51=0.0), 'none': dict(prior_scale=0.0, prior_scale_c51=0.0)}
GRID = dict(prior_scale=[0.0, 5.0, 20.0], beta=[1.0, 2.0, 5.0], beta_final=[0.5, 1.0])
PAPER = dict(disagreement='exact', prior_scale=20.0, beta=5.0, beta_final=1.0)
SELECT_SIZES, TEST_SIZES = (10, 14), (8, 10, 12, 14, 20)
# The CPU-sized cause study: a 2 x 2 x 2 factorial (exact/projected w_1, QR prior 5/20, β 5 -> 1 or constant 1) on
# held-out seeds at Deep Sea 10, 400 episodes (long enough to see the first treasure: Bootstrapped DQN's median is
# about 60, PE-DQN's about 250); the schedule is the one above (over 333 episodes).
CAUSE_EPISODES = 400
CAUSE_GRID = [dict(prior_scale=p, beta=b, beta_final=1.0) for p in (5.0, 20.0) for b in (1.0, 5.0)]
BONUS_MAX = (1.0, 16.0)  # beside the default 2 (v_max - v_min) = 4
CHOSEN = ('exact', 5.0, 5.0)  # the cause study's pick (`--report` prints it): (w_1, prior, β); not yet confirmed


def jobs() -> dict:
    "Every job by name -> its spec, in the order they run (the ablations first)."
    js = {f'ablation-{v}': dict(kind='ablation', variant=v, size=12, seeds='test') for v in ABLATIONS}
    js.update(
        {
            f'cause-{d}-N10': dict(kind='cause', disagreement=d, size=10, seeds='held_out', episodes=CAUSE_EPISODES)
            for d in ('exact', 'projected')
        }
    )
    js['cause-boot_dqn-N10'] = dict(kind='boot_dqn', size=10, seeds='held_out', episodes=CAUSE_EPISODES)
    js.update(
        {
            f'confirm-{k}-N{n}': dict(kind='confirm', setting=k, size=n, seeds='test')
            for k in ('paper', 'chosen')
            for n in (10, 14)
        }
    )
    js.update(
        {
            f'bonus-b{b:g}-N10': dict(kind='bonus', bonus_max=b, size=10, seeds='held_out', episodes=CAUSE_EPISODES)
            for b in BONUS_MAX
        }
    )
    for d, n in itertools.product(('exact', 'projected'), SELECT_SIZES):
        js[f'select-{d}-N{n}'] = dict(kind='grid', disagreement=d, size=n, seeds='held_out')
    js.update({f'select-boot_dqn-N{n}': dict(kind='boot_dqn', size=n, seeds='held_out') for n in SELECT_SIZES})
    for n in TEST_SIZES:
        js.update(
            {f'test-{d}-N{n}': dict(kind='grid', disagreement=d, size=n, seeds='test') for d in ('exact', 'projected')}
        )
        js[f'test-boot_dqn-N{n}'] = dict(kind='boot_dqn', size=n, seeds='test')
    return js


def experiment(spec: dict, quick: bool):
    "The job's `Experiment` and the labels of its grid's settings."
    from uncertain_rl.agents.boot_dqn import BootDQNConfig
    from uncertain_rl.agents.pe_dqn import PEDQNConfig
    from uncertain_rl.experiments import Experiment, split_keys

    n_seeds = 2 if quick else 10
    if spec['seeds'] == 'test':
        seeds = dict(seeds=n_seeds, keys=split_keys(n_seeds))
    else:
        seeds = dict(seeds=HELD_OUT[:n_seeds])
    common = dict(
        episodes=12 if quick else spec.get('episodes', EPISODES),
        size=4 if quick else spec['size'],
        eval_every=0,
        snapshots=0,
        num_chunks=4 if quick else 25,
        **seeds,
    )
    if spec['kind'] == 'boot_dqn':
        return Experiment(BootDQNConfig(), 'deep_sea', grid=[dict(prior_scale=5.0)], **common), [{}]
    if spec['kind'] == 'ablation':
        v = spec['variant']
        config = PEDQNConfig(ablation='none' if v in ('pe_dqn', 'beta0') else v, beta_decay_episodes=DECAY)
        beta = dict(beta=0.0, beta_final=0.0) if v == 'beta0' else dict(beta=5.0, beta_final=1.0)
        settings = [dict(regime=r, **p, **beta) for r, p in REGIMES.items()]
    elif spec['kind'] == 'cause':
        config = PEDQNConfig(disagreement=spec['disagreement'], beta_decay_episodes=DECAY)
        settings = CAUSE_GRID
    elif spec['kind'] == 'confirm':
        d, prior, beta = (
            (PAPER['disagreement'], PAPER['prior_scale'], PAPER['beta']) if spec['setting'] == 'paper' else CHOSEN
        )
        config = PEDQNConfig(disagreement=d, beta_decay_episodes=DECAY)
        settings = [dict(prior_scale=prior, beta=beta, beta_final=1.0)]
    elif spec['kind'] == 'bonus':
        config = PEDQNConfig(bonus_max=spec['bonus_max'], beta_decay_episodes=DECAY)
        settings = [dict(prior_scale=PAPER['prior_scale'], beta=PAPER['beta'], beta_final=PAPER['beta_final'])]
    else:
        config = PEDQNConfig(disagreement=spec['disagreement'], beta_decay_episodes=DECAY)
        settings = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    grid = [{k: v for k, v in s.items() if k != 'regime'} for s in settings]
    return Experiment(config, 'deep_sea', grid=grid, **common), settings


def run_job(name: str, out: Path, quick: bool) -> None:
    "Run one job and write its result (solved-at and first treasure per run, setting labels, seconds)."
    from uncertain_rl.experiments import sweep
    from uncertain_rl.metrics import first_treasure_episode, sweep_solved_at

    spec = jobs()[name]
    exp, settings = experiment(spec, quick)
    start = time.perf_counter()
    solved, res = sweep(exp, sweep_solved_at)
    first = first_treasure_episode(np.nan_to_num(res.logs['denoised_return'])).reshape(len(settings), -1)
    result = dict(
        job=name,
        spec=spec,
        settings=settings,
        seeds=exp.seed_list,
        budget=exp.episodes,
        size=exp.size,
        solved_at=solved.reshape(len(settings), -1).tolist(),
        first_treasure=first.tolist(),
        episodes_run=int(np.max(res.episodes)),
        seconds=time.perf_counter() - start,
        compile_s=res.compile_seconds if hasattr(res, 'compile_seconds') else None,
    )
    tmp = out / f'{name}.json.tmp'
    tmp.write_text(json.dumps(result))
    os.replace(tmp, out / f'{name}.json')


def run_all(names: list, out: Path, workers: int, quick: bool, deadline: float) -> None:
    "Run the jobs not yet done, `workers` processes at a time, stopping new starts (and killing) at the deadline."
    todo = [n for n in names if not (out / f'{n}.json').exists()]
    running, t0 = {}, time.time()
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE='false')
    while todo or running:
        while todo and len(running) < workers and time.time() - t0 < deadline - 60:
            n = todo.pop(0)
            cmd = [sys.executable, __file__, '--job', n, '--out', str(out)] + (['--quick'] if quick else [])
            running[n] = (
                subprocess.Popen(cmd, env=env, stdout=open(out / f'{n}.log', 'w'), stderr=subprocess.STDOUT),
                time.time(),
            )
        for n, (p, t) in list(running.items()):
            if p.poll() is not None:
                print(f'{n}: rc {p.returncode}, {time.time() - t:.0f} s  [t = {time.time() - t0:.0f} s]', flush=True)
                del running[n]
            elif time.time() - t0 > deadline:
                p.kill()
                print(f'{n}: killed at the deadline', flush=True)
                del running[n]
        if not running and time.time() - t0 >= deadline - 60:
            break
        time.sleep(1)
    print('not started:', todo, flush=True)


def load(out: Path, name: str):
    p = out / f'{name}.json'
    return json.loads(p.read_text()) if p.exists() else None


def censored(solved: np.ndarray, budget: int) -> np.ndarray:
    """Solved-at (or first-treasure) episodes with the runs that never got there at the budget + 1 (ranked after all
    others)."""
    s = np.asarray(solved, float)
    return np.where(s > 0, s, budget + 1)


def holm(ps: list) -> list:
    "Holm's step-down adjustment of p-values."
    order = np.argsort(ps)
    adj, running = np.empty(len(ps)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adj[i] = running
    return adj.tolist()


def ablation_table(out: Path) -> str:
    """Per regime: solved, solved-at and first treasure per variant; Fisher (solved counts) and Mann-Whitney (solved-at,
    unsolved ranked last) against PE-DQN, each Holm-corrected across the four variants."""
    from scipy.stats import fisher_exact, mannwhitneyu

    rows = [
        '| priors | variant | solved | solved-at (25 - 50 - 75th) | first treasure (median) '
        '| Fisher p vs PE-DQN (Holm) | Mann-Whitney p vs PE-DQN (Holm) |',
        '|---|---|---|---|---|---|---|',
    ]
    res = {v: load(out, f'ablation-{v}') for v in ABLATIONS}
    for k, regime in enumerate(REGIMES):
        if res['pe_dqn'] is None:
            break
        ref = np.asarray(res['pe_dqn']['solved_at'][k])
        budget = res['pe_dqn']['budget']
        stats = {}
        for v in ABLATIONS[1:]:
            if res[v] is None:
                continue
            s = np.asarray(res[v]['solved_at'][k])
            fisher = fisher_exact([[(ref > 0).sum(), (ref == 0).sum()], [(s > 0).sum(), (s == 0).sum()]])[1]
            mw = mannwhitneyu(censored(ref, budget), censored(s, budget), alternative='two-sided').pvalue
            stats[v] = (fisher, mw)
        fisher_holm = dict(zip(stats, holm([f for f, _ in stats.values()])))
        mw_holm = dict(zip(stats, holm([m for _, m in stats.values()])))
        for v in ABLATIONS:
            if res[v] is None:
                continue
            s, f = np.asarray(res[v]['solved_at'][k]), np.asarray(res[v]['first_treasure'][k])
            q = np.percentile(censored(s, budget), [25, 50, 75], method='nearest')
            qs = ' - '.join('max' if x > budget else f'{x:.0f}' for x in q)
            ft = np.median(censored(f, budget))
            ft = 'never' if not (f > 0).any() else 'max' if ft > budget else f'{ft:.0f}'
            p = ('-', '-') if v == 'pe_dqn' else (f'{fisher_holm[v]:.3g}', f'{mw_holm[v]:.3g}')
            rows.append(f'| {regime} | {LABELS[v]} | {(s > 0).sum()}/{len(s)} | {qs} | {ft} | {p[0]} | {p[1]} |')
    return '\n'.join(rows)


def grid_scores(out: Path, prefix: str, sizes) -> dict:
    "(disagreement, prior, β, β_final) -> per size: solved-at and first treasure arrays (test or select jobs)."
    scores = {}
    for d in ('exact', 'projected'):
        for n in sizes:
            r = load(out, f'{prefix}-{d}-N{n}')
            if r is None:
                continue
            for s, solved, first in zip(r['settings'], r['solved_at'], r['first_treasure']):
                key = (d, s['prior_scale'], s['beta'], s['beta_final'])
                scores.setdefault(key, {})[n] = (np.asarray(solved), np.asarray(first), r['budget'])
    return scores


def select(out: Path) -> tuple:
    """The declared rule on the held-out jobs: smallest sum of median solved-at (unsolved = budget); ties -> nearest the
    paper."""
    scores = {k: v for k, v in grid_scores(out, 'select', SELECT_SIZES).items() if len(v) == len(SELECT_SIZES)}
    if not scores:
        return None, {}
    value = {k: sum(np.median(np.where(s > 0, s, b)) for s, _, b in v.values()) for k, v in scores.items()}
    distance = lambda k: (k[0] != 'exact') + (k[1] != 20.0) + (k[2] != 5.0) + (k[3] != 1.0)
    best = min(value, key=lambda k: (value[k], distance(k)))
    return best, value


def grid_table(out: Path, prefix: str, sizes, keys: list) -> str:
    rows = [
        '| setting (w_1, prior, β → β_final) | '
        + ' | '.join(f'N = {n}: solved, median solved-at, first treasure' for n in sizes)
        + ' |',
        '|---' * (len(sizes) + 1) + '|',
    ]
    label = lambda k: f'{k[0]}, {k[1]:g}, {k[2]:g} → {k[3]:g}'
    scores = grid_scores(out, prefix, sizes)
    boots = {n: load(out, f'{prefix}-boot_dqn-N{n}') for n in sizes}

    def cell(s, f, b):
        med = f'{np.median(s[s > 0]):.0f}' if (s > 0).any() else '-'
        ft = f'{np.median(censored(f, b)):.0f}' if (f > 0).any() else 'never'
        return f'{(s > 0).sum()}/{len(s)}, {med}, {ft}'

    for k in keys:
        if k in scores:
            rows.append(
                f'| {label(k)} | ' + ' | '.join(cell(*scores[k][n]) if n in scores[k] else '' for n in sizes) + ' |'
            )
    rows.append(
        '| Bootstrapped DQN (prior 5) | '
        + ' | '.join(
            cell(np.asarray(b['solved_at'][0]), np.asarray(b['first_treasure'][0]), b['budget']) if b else ''
            for b in boots.values()
        )
        + ' |'
    )
    return '\n'.join(rows)


def cause_choice(out: Path) -> tuple:
    """The cause study's rule, declared before it ran: the setting with the earliest median first treasure (never =
    the budget + 1); ties go to more runs solved within the budget, then to the setting nearest the paper's."""
    rows = {}
    for d in ('exact', 'projected'):
        r = load(out, f'cause-{d}-N10')
        if r is None:
            continue
        for st, solved, first in zip(r['settings'], r['solved_at'], r['first_treasure']):
            rows[(d, st['prior_scale'], st['beta'])] = (np.asarray(solved), np.asarray(first), r['budget'])
    if not rows:
        return None, rows
    med = lambda k: np.median(censored(rows[k][1], rows[k][2]))
    near = lambda k: (k[0] != 'exact') + (k[1] != 20.0) + (k[2] != 5.0)
    return min(rows, key=lambda k: (med(k), -(rows[k][0] > 0).sum(), near(k))), rows


def cause_table(out: Path) -> str:
    from scipy.stats import mannwhitneyu

    best, rows = cause_choice(out)
    if best is None:
        return ''
    paper = ('exact', 20.0, 5.0)
    lines = [
        '| w_1 | QR prior | β (→ 1 over 333 episodes) | found the treasure | first treasure (25 - 50 - 75th) | '
        'solved within the budget | Mann-Whitney p (first treasure) vs the paper\'s |',
        '|---|---|---|---|---|---|---|',
    ]
    for k, (solved, first, budget) in rows.items():
        f = censored(first, budget)
        q = ' - '.join('max' if x > budget else f'{x:.0f}' for x in np.percentile(f, [25, 50, 75], method='nearest'))
        p = (
            '-'
            if k == paper or paper not in rows
            else f"{mannwhitneyu(f, censored(rows[paper][1], budget)).pvalue:.3g}"
        )
        lines.append(
            f'| {k[0]} | {k[1]:g} | {k[2]:g} | {(first > 0).sum()}/{len(first)} | {q} '
            f'| {(solved > 0).sum()}/{len(solved)} | {p} |'
        )
    b = load(out, 'cause-boot_dqn-N10')
    if b:
        f = np.asarray(b['first_treasure'][0])
        lines.append(
            f"| Bootstrapped DQN (prior 5) | | | {(f > 0).sum()}/{len(f)} | median {np.median(f[f > 0]):.0f} | "
            f"{(np.asarray(b['solved_at'][0]) > 0).sum()}/{len(f)} | |"
        )
    return '\n'.join(lines) + f'\n\nchosen by the declared rule: {best}'


def summary(solved: np.ndarray, first: np.ndarray, budget: int) -> str:
    "solved count, solved-at and first treasure quartiles (never = max) as table cells."
    q = lambda x: ' - '.join(
        'max' if v > budget else f'{v:.0f}' for v in np.percentile(censored(x, budget), [25, 50, 75], method='nearest')
    )
    return f'{(solved > 0).sum()}/{len(solved)} | {q(solved)} | {(first > 0).sum()}/{len(first)} | {q(first)}'


def confirm_table(out: Path) -> str:
    """The cause study's pick against the paper's setting on the tables' seeds (Fisher on solved, MW on solved-at and
    first)."""
    from scipy.stats import fisher_exact, mannwhitneyu

    lines = [
        '| N | setting (w_1, prior, β → 1) | solved | solved-at (25 - 50 - 75th) | found '
        '| first treasure (25 - 50 - 75th) | Fisher p | MW p solved-at | MW p first treasure |',
        '|---' * 9 + '|',
    ]
    for n in (10, 14):
        paper, chosen = load(out, f'confirm-paper-N{n}'), load(out, f'confirm-chosen-N{n}')
        if paper is None or chosen is None:
            continue
        b = paper['budget']
        get = lambda r: (np.asarray(r['solved_at'][0]), np.asarray(r['first_treasure'][0]))
        (ps, pf), (cs, cf) = get(paper), get(chosen)
        fisher = fisher_exact([[(ps > 0).sum(), (ps == 0).sum()], [(cs > 0).sum(), (cs == 0).sum()]])[1]
        mws = mannwhitneyu(censored(ps, b), censored(cs, b)).pvalue
        mwf = mannwhitneyu(censored(pf, b), censored(cf, b)).pvalue
        lines.append(f"| {n} | paper: exact, 20, 5 | {summary(ps, pf, b)} | - | - | - |")
        lines.append(
            f"| {n} | pick: {CHOSEN[0]}, {CHOSEN[1]:g}, {CHOSEN[2]:g} | {summary(cs, cf, b)} | {fisher:.3g} | "
            f"{mws:.3g} | {mwf:.3g} |"
        )
        boot = load(out, f'test-boot_dqn-N{n}')
        if boot:
            lines.append(f"| {n} | Bootstrapped DQN (prior 5) | {summary(*get(boot), boot['budget'])} | | | |")
    return '\n'.join(lines)


def bonus_table(out: Path) -> str:
    "The bonus support's top against the default's row of the cause study (same seeds, size and budget)."
    from scipy.stats import mannwhitneyu

    base = load(out, 'cause-exact-N10')
    if base is None:
        return ''
    i = next(i for i, st in enumerate(base['settings']) if st['prior_scale'] == 20.0 and st['beta'] == 5.0)
    rows = {4.0: (np.asarray(base['solved_at'][i]), np.asarray(base['first_treasure'][i]))}
    for bm in BONUS_MAX:
        r = load(out, f'bonus-b{bm:g}-N10')
        if r:
            rows[bm] = (np.asarray(r['solved_at'][0]), np.asarray(r['first_treasure'][0]))
    b = base['budget']
    lines = [
        '| bonus_max (initial bonus ≈ bonus_max / 4) | solved | solved-at (25 - 50 - 75th) | found | '
        'first treasure (25 - 50 - 75th) | MW p first treasure vs 4 |',
        '|---' * 6 + '|',
    ]
    for bm in sorted(rows):
        s, f = rows[bm]
        p = '-' if bm == 4.0 else f'{mannwhitneyu(censored(f, b), censored(rows[4.0][1], b)).pvalue:.3g}'
        lines.append(f'| {bm:g} | {summary(s, f, b)} | {p} |')
    return '\n'.join(lines)


def report(out: Path) -> str:
    best, value = select(out)
    parts = ['## Ablations at Deep Sea 12 (seeds 0-9, equal β schedule and budget)', ablation_table(out)]
    if load(out, 'cause-exact-N10') or load(out, 'cause-projected-N10'):
        parts += [
            f'## The late start: a 2 x 2 x 2 factorial at Deep Sea 10 (seeds 1000-1009, {CAUSE_EPISODES} episodes)',
            cause_table(out),
        ]
    if load(out, 'confirm-paper-N10'):
        parts += [
            '## Confirmation on the tables\' seeds 0-9 (1,000 episodes): the pick against the paper\'s setting',
            confirm_table(out),
        ]
    if load(out, 'bonus-b1-N10') or load(out, 'bonus-b16-N10'):
        parts += [
            f'## The bonus\'s starting level: bonus_max at Deep Sea 10 (seeds 1000-1009, {CAUSE_EPISODES} episodes, '
            'the paper\'s setting)',
            bonus_table(out),
        ]
    if best:
        ranked = sorted(value, key=value.get)
        parts += [
            '## Held-out selection (seeds 1000-1009, Deep Sea 10 and 14): the best 6, the paper\'s setting',
            grid_table(out, 'select', SELECT_SIZES, list(dict.fromkeys(ranked[:6] + [tuple(PAPER.values())]))),
            f'chosen: {best} (sum of medians {value[best]:.0f}; '
            f'the paper\'s {value.get(tuple(PAPER.values()), float("nan")):.0f})',
            '## Test seeds 0-9: the chosen setting and the paper\'s',
            grid_table(out, 'test', TEST_SIZES, list(dict.fromkeys([best, tuple(PAPER.values())]))),
        ]
    return '\n\n'.join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default=str(OUT))
    ap.add_argument('--job', help='run this one job (used by the pool)')
    ap.add_argument('--jobs', nargs='*', help='run these jobs (default: all not done)')
    ap.add_argument('--workers', type=int, default=1)
    ap.add_argument(
        '--deadline', type=float, default=1e9, help='seconds after which no job starts and running ones stop'
    )
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--report', action='store_true')
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.job:
        return run_job(args.job, out, args.quick)
    if args.report:
        text = report(out)
        (out / 'table.md').write_text(text + '\n')
        return print(text)
    run_all(args.jobs or list(jobs()), out, args.workers, args.quick, args.deadline)


if __name__ == '__main__':
    main()
