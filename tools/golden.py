"""Golden runs: short training runs with fixed keys whose every state leaf and logged value is fingerprinted.

    python tools/golden.py list                 # the cases, from the registered agents' declarations
    python tools/golden.py record               # write tests/golden/golden_runs.json from the current code
    python tools/golden.py check                # compare the current code with it, bit for bit; exit 1 on any
                                                # difference
    python tools/golden.py check --only dqn@chain,tdu@deep_sea --file other.json
    python tools/golden.py lineage --since REV  # after a refactor: keep the records that REV's code computed

The cases are not listed here: every registered agent declares its own (`GoldenCase`s in its `AgentEntry`, see
`uncertain_rl.base`), so a new agent, ours or an installed package's (entry-point group `uncertain_rl.agents`), has
golden runs as soon as it is registered. A refactor that must not change behaviour keeps every fingerprint; a
deliberate change of behaviour regenerates the file in a commit of its own, saying why, after the learning tests pass
(`pytest -m slow`: CI runs some agents' golden runs in place of their learning tests, which take minutes).

Two checks, so that no machine skips them:
- **exact** on the machine kind that recorded the file (the file names the CPU model, its instruction sets, the
  architecture, the jax and jaxlib versions, and `XLA_FLAGS` if they were set): every fingerprint's SHA-256, bit
  for bit;
- **within tolerance** on any other kind, where XLA may fuse and round floats differently: shapes and dtypes equal,
  every integer and boolean array (actions in the replay, episode lengths, counts, the solved-at episode) bit for
  bit, so every decision is the same, and each float array's sum within `RTOL` of its sum of magnitudes (a few runs
  that amplify rounding have their own, measured, in `RTOL_FOR`).
`check` says which one it ran and on which kind; `record` says on which kind it recorded.

`lineage --since REV` keeps stored results valid across a refactor, on whatever machine it runs. It fingerprints the
code that trains each (agent, environment) at REV (a temporary git worktree) and in this checkout; for the agents
whose fingerprint moved it records their golden runs twice on this machine, once with REV's code and once with this
code, and compares the two bit for bit (no golden file and no machine kind is involved: both sides ran here). Each
moved fingerprint whose agent's runs were all bit-identical (and at least one ran), and whose environment class either
kept its source or has a golden run of that agent, becomes an entry *old -> new* in the package's
`uncertain_rl/suites/equivalent_code.json`, written by this tool with its evidence (the commit, the runs, this
machine): the store then finds the records REV's code computed instead of training them again, and the report counts
them as current (`uncertain_rl.suites.fingerprints.same_code`). Commit the file with the refactor. `--only` restricts
the golden runs (an agent with none run is not shown).

A suite's code (how a setting is set up and stopped, the run's parameters, what a record keeps) has its own
fingerprint in every record's key. Where it moved, `lineage` runs the suite's quick table for DQN
(`uncertain-rl suite run --agents dqn --profile quick`) with REV's code and with this code, on this machine, and
compares the records' episodes and metrics; a suite whose records are all equal becomes an entry *old -> new* too.
"""

import argparse
import hashlib
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

GOLDEN = Path(__file__).resolve().parent.parent / 'tests' / 'golden' / 'golden_runs.json'
STEPS = 300
KEY = 7
ENV_SIZES = {'deep_sea': 8, 'chain': 10, 'subleq_negate_positives': 16, 'subleq_identity': 16}  # a size per sized env
RTOL = 1e-4  # off the recording kind: |sum - recorded sum| <= RTOL * recorded sum of |x|. Measured: the 41 runs
# recorded on an AMD EPYC and again on an Intel Xeon (jax 0.10.2): 38 bit-identical; IV-DQN (Deep Sea,
# chain) and IV-SAC moved by at most 4.3e-6 of their magnitudes (23 times inside RTOL), and no integer
# array changed. A change of behaviour moves them by far more (tests/test_golden.py). Recorded again on an AMD EPYC
# with AVX2 and no AVX-512 (2026-12-07), against a file from an EPYC whose flags were not kept (its bits differ; the
# same run here with XLA held to AVX differs from both): every run moved, no integer array; 49 of 51 runs inside
# RTOL (the largest 9.3e-5), two outside (RTOL_FOR).
RTOL_FOR = {  # runs whose training amplifies last-bit rounding beyond RTOL across instruction sets (measured there)
    'pe_dqn_projected@deep_sea': 2e-3,  # 6.9e-4: the projection's bonus network feeds the acting values
    'ensemble_sac@pendulum': 2e-2,  # 7.4e-3: continuous actions, no integer array to pin the trajectory
}


def cases() -> list:
    "Every golden run, `(run name, case name, agent name, overrides, env)`, from the registered agents' declarations."
    from uncertain_rl.registry import AGENTS

    return [
        (f'{case.name}@{env}', case.name, name, dict(case.overrides), env)
        for name in AGENTS
        for case in AGENTS[name].golden
        for env in case.envs
    ]


def fingerprint(x) -> dict:
    a = np.ascontiguousarray(np.asarray(x))
    wide = a.astype(np.float64)
    return dict(
        shape=list(a.shape),
        dtype=str(a.dtype),
        sha256=hashlib.sha256(a.tobytes()).hexdigest()[:24],
        sum=float(np.nansum(wide)) if a.size else 0.0,
        abs_sum=float(np.nansum(np.abs(wide))) if a.size else 0.0,
    )


def run_case(agent_name: str, overrides: dict, env_name: str) -> dict:
    "Train the case (its agent's config with `overrides`, no environment preset) and fingerprint state and logs."
    from uncertain_rl.base import gymnax_spec
    from uncertain_rl.loops import TrainConfig, train
    from uncertain_rl.registry import ENVS, agent_config, make_agent, make_env
    from uncertain_rl.runtime import use_unrolled_threefry

    use_unrolled_threefry()  # as runtime.setup() lowers it for runs (the same bits as JAX's rolled loop: tested)
    env = make_env(env_name, ENV_SIZES.get(env_name, 1), 42)
    agent = make_agent(agent_name, agent_config(agent_name, **overrides), gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=STEPS, max_episodes=STEPS))
    state, logs = jax.jit(run.run)(jax.random.PRNGKey(KEY))
    out = {
        f'state{jax.tree_util.keystr(path)}': fingerprint(leaf)
        for path, leaf in jax.tree_util.tree_flatten_with_path(state)[0]
    }
    out.update({f'logs/{k}': fingerprint(logs[k]) for k in sorted(logs)})
    solved = ENVS[env_name].solved
    if solved is not None:  # the environment's own rule: the episode it counts as solved
        out['solved/at'] = fingerprint(np.asarray(solved({k: np.asarray(v)[None] for k, v in logs.items()}), np.int64))
    return out


# The instruction sets XLA's CPU compiler may target (it compiles for the host): two machines that both call themselves
# "AMD EPYC" gave different last bits in CI (2026-12-07), and the same run here with `--xla_cpu_max_isa=AVX` differs
# from this AVX2 machine's, so the machine kind names them. Flags that do not change generated code (security
# mitigations, hypervisor features) are left out, so that machines differing only in those still compare bit for bit.
ISA_PREFIXES = (
    *('sse', 'ssse', 'avx', 'amx', 'fma', 'f16c', 'bmi', 'adx', 'aes', 'pclmul', 'vpclmul', 'vaes', 'gfni', 'sha'),
    *('movbe', 'popcnt', 'abm', 'lzcnt', 'xop'),  # x86's `flags`
    *('fp16', 'asimd', 'sve', 'neon'),  # Arm's `Features`
)


def instruction_sets(flags: str) -> str:
    "The code-generating flags of one `/proc/cpuinfo` flags line (x86 `flags`, Arm `Features`), sorted, space-joined."
    return ' '.join(sorted({f for f in flags.split() if f.startswith(ISA_PREFIXES)}))


def _cpuinfo(*fields: str) -> str:
    try:
        return next(l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.split(':')[0].strip() in fields)
    except Exception:
        return ''


def machine() -> dict:
    """The machine kind a golden file is recorded on: CPU model, instruction sets, architecture, jax and jaxlib, and
    `XLA_FLAGS` where the environment sets them (flags such as `--xla_backend_optimization_level=0` change the code XLA
    generates, and so the last bits of float results: measured here, every quick golden run moved)."""
    kind = dict(
        cpu=_cpuinfo('model name'),
        isa=instruction_sets(_cpuinfo('flags', 'Features')),
        machine=platform.machine(),
        jax=jax.__version__,
        jaxlib=jax.lib.__version__ if hasattr(jax.lib, '__version__') else '',
    )
    flags = os.environ.get('XLA_FLAGS', '').strip()
    return dict(kind, xla_flags=flags) if flags else kind


def record(only=None) -> dict:
    print(f'recording on {machine()}', flush=True)
    runs = {}
    for run, _, agent, overrides, env in cases():
        if only and run not in only:
            continue
        runs[run] = run_case(agent, overrides, env)
        print(f'recorded {run}', flush=True)
    return dict(machine=machine(), steps=STEPS, key=KEY, runs=runs)


def same_kind(recorded: dict, here: dict | None = None) -> bool:
    """Whether `here` (default: this machine) is the machine kind that `recorded` names: CPU, instruction sets,
    architecture, jax, jaxlib and XLA flags (a file recorded before the instruction sets were kept is never the same
    kind)."""
    return recorded == (machine() if here is None else here)


def _scale(fp: dict) -> float:
    "The recorded sum of magnitudes (files recorded before it was kept: the magnitude of the sum)."
    return fp.get('abs_sum', abs(fp['sum']))


def _within(fp: dict, now: dict, rtol: float) -> bool:
    "Float arrays: sums within `rtol` of the sum of magnitudes; integer and boolean arrays: bit for bit."
    if np.issubdtype(np.dtype(fp['dtype']), np.floating):
        return abs(now['sum'] - fp['sum']) <= rtol * _scale(fp) or (np.isnan(now['sum']) and np.isnan(fp['sum']))
    return now['sha256'] == fp['sha256']


def compare(golden: dict, current: dict, exact: bool = True, rtol: float = RTOL) -> list:
    """Differences as lines; empty when bit-identical (`exact`) or, with `exact=False`, within tolerance (above: `rtol`,
    or a run's own in `RTOL_FOR` where larger)."""
    problems = []
    for run, fps in golden['runs'].items():
        run_rtol = max(rtol, RTOL_FOR.get(run, 0.0))
        now = current['runs'].get(run)
        if now is None:
            problems.append(f'{run}: missing')
            continue
        for k, fp in fps.items():
            if k not in now:
                problems.append(f'{run} {k}: missing')
                continue
            if (now[k]['shape'], now[k]['dtype']) != (fp['shape'], fp['dtype']):
                problems.append(f"{run} {k}: {fp['dtype']}{fp['shape']} -> {now[k]['dtype']}{now[k]['shape']}")
            elif exact and now[k]['sha256'] != fp['sha256']:
                problems.append(f"{run} {k}: differs (sum {fp['sum']!r} -> {now[k]['sum']!r})")
            elif not exact and not _within(fp, now[k], run_rtol):
                problems.append(
                    f"{run} {k}: outside the tolerance (sum {fp['sum']!r} -> {now[k]['sum']!r}, "
                    f"rtol {run_rtol:g} of {_scale(fp)!r})"
                )
        for k in now:
            if k not in fps:
                problems.append(f'{run} {k}: new (not in the golden file)')
    return problems


ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / 'uncertain_rl' / 'suites' / 'equivalent_code.json'
_FINGERPRINTS = """
import json, warnings
warnings.filterwarnings('ignore')
from uncertain_rl import registry
from uncertain_rl.suites.fingerprints import code_fingerprint, run_fingerprint
out = {}
from bsuite import sweep
first = {}
for bsuite_id in sweep.SETTINGS:  # bsuite's experiments, compiled (a setting of each; MNIST's need the digits)
    if not bsuite_id.startswith('mnist'): first.setdefault(bsuite_id.split('/')[0], bsuite_id)
def made(env_name):
    if registry.bsuite_id(env_name) is not None:
        from uncertain_rl.envs.bsuite import make
        return make(registry.bsuite_id(env_name))[0]
    return registry.make_env(env_name, %r.get(env_name, 1), 42)
for agent in registry.AGENTS:
    for env_name in [*registry.ENVS, *(f'bsuite:{i}' for i in first.values())]:
        if not registry.runs_on(agent, env_name): continue
        env = made(env_name)
        out[f'{agent}|{env_name}'] = dict(run=run_fingerprint(agent, env), env=code_fingerprint(type(env)),
                                          env_class=f'{type(env).__module__}.{type(env).__qualname__}')
print(json.dumps(out))
"""


_SUITE_FINGERPRINTS = """
import json, warnings
warnings.filterwarnings('ignore')
from uncertain_rl.suites.core import suites
from uncertain_rl.suites.fingerprints import suite_fingerprint
print(json.dumps({name: suite_fingerprint(suite) for name, suite in suites().items()}))
"""
SUITE_GOLDEN = ('--agents', 'dqn', '--profile', 'quick', '--no-progress')  # a suite's golden run: its quick table


def suite_fingerprints(package_root: Path) -> dict:
    "{suite: fingerprint of its code} at `package_root`."
    done = run_with(package_root, ['-c', _SUITE_FINGERPRINTS])
    if done.returncode:
        sys.exit(f'fingerprinting the suites under {package_root} failed:\n{done.stderr[-3000:]}')
    return json.loads(done.stdout.strip().splitlines()[-1])


def suite_results(package_root: Path, suite: str, out: Path) -> dict:
    """The suite's golden run with the code at `package_root`: {(design, arm, setting, seed, budget): (episodes,
    metrics)} of its records."""
    done = run_with(
        package_root, ['-m', 'uncertain_rl', 'suite', 'run', '--suite', suite, '--out', str(out), *SUITE_GOLDEN]
    )
    if done.returncode:
        sys.exit(f'the golden run of suite {suite} with the code at {package_root} failed:\n{done.stderr[-3000:]}')
    con = sqlite3.connect(out / 'results.sqlite')
    rows = con.execute('SELECT design, arm, setting, seed, budget, episodes, metrics FROM records')
    results = {tuple(r[:5]): (r[5], json.loads(r[6])) for r in rows}
    con.close()
    return results


def suite_lineage(tree: Path, tmp: Path, since: str) -> list:
    "The entries *old -> new* of the suites whose code moved and whose golden runs gave the same records."
    old, new = suite_fingerprints(tree), suite_fingerprints(ROOT)
    moved = sorted(s for s in set(old) & set(new) if old[s] != new[s])
    print(f'suite fingerprints moved for {len(moved)} suites: {", ".join(moved) or "none"}', flush=True)
    here, entries = machine(), []
    for suite in moved:
        before = suite_results(tree, suite, tmp / f'suite-old-{suite}')
        after = suite_results(ROOT, suite, tmp / f'suite-new-{suite}')
        if not before or before != after:
            print(f'not shown: suite {suite}: its golden run gave different records (or none)')
            continue
        evidence = (
            f"suite {suite}'s quick table for dqn ({len(after)} records) equal with the code at {since[:7]} and after "
            f"it, both run on {here['cpu']} (jax {here['jax']}), {time.strftime('%Y-%m-%d')}"
        )
        entries.append(dict(old=old[suite], new=new[suite], suite=suite, evidence=evidence))
    return entries


def run_with(package_root: Path, args: list, capture: bool = True) -> subprocess.CompletedProcess:
    """This file's `args` (or a `-c` program, or a `-m` module) run by a Python whose `uncertain_rl` is the one under
    `package_root`."""
    env = dict(os.environ, PYTHONPATH=str(package_root))
    cmd = [sys.executable, *args] if args[0] in ('-c', '-m') else [sys.executable, __file__, *args]
    return subprocess.run(cmd, env=env, capture_output=capture, text=True, cwd=package_root)


def code_fingerprints(package_root: Path) -> dict:
    """{'agent|env': {run, env, env_class}} for every registered agent on every environment it runs on, at
    `package_root`."""
    done = run_with(package_root, ['-c', _FINGERPRINTS % ENV_SIZES])
    if done.returncode:
        sys.exit(f'fingerprinting the code under {package_root} failed:\n{done.stderr[-3000:]}')
    return json.loads(done.stdout.strip().splitlines()[-1])


def equivalences(old: dict, new: dict, passed: set, golden_classes: dict, evidence: str) -> tuple:
    """Entries *old -> new* for the (agent, environment) pairs whose fingerprint moved, and the reasons others were not
    shown: the agent's golden runs must all have passed (`passed`), and the environment class must have kept its
    source or be one the agent's golden runs train on (`golden_classes`: agent -> classes)."""
    entries, refused = [], []
    for pair in sorted(set(old) & set(new)):
        agent, env_name = pair.split('|')
        if old[pair]['run'] == new[pair]['run']:
            continue
        if agent not in passed:
            refused.append(f'{pair}: its golden runs were not bit-identical (or none ran)')
            continue
        if old[pair]['env'] != new[pair]['env'] and new[pair]['env_class'] not in golden_classes.get(agent, ()):
            refused.append(f"{pair}: {new[pair]['env_class']} changed and no golden run of {agent} trains on it")
            continue
        entries.append(dict(old=old[pair]['run'], new=new[pair]['run'], agent=agent, env=env_name, evidence=evidence))
    return entries, refused


def same_runs(old: dict, new: dict, runs: list, agents: dict) -> set:
    """The agents whose golden `runs` (run -> agent: `agents`) recorded bit-identical in `old` and `new` (two `record`
    results made on one machine), every one of their runs that was recorded. An array only the new code has (state
    added by the refactor) is no difference: every array the old code's runs computed, its logs included, must be
    bit-identical, and a record is made from those."""
    asked = {'runs': {r: old['runs'][r] for r in runs if r in old['runs']}}
    lines = [line for line in compare(asked, new, exact=True) if not line.endswith(': new (not in the golden file)')]
    failed = {line.split(' ')[0].rstrip(':') for line in lines}  # lines name runs of `asked`
    failed |= {r for r in runs if r not in old['runs']}
    return {agents[r] for r in runs} - {agents[r] for r in failed}


def lineage(since: str, only=None) -> int:
    "`lineage --since REV` (module docstring): write the equivalences it shows; the number written."
    since = subprocess.run(  # the commit, once: HEAD may move while the runs go on
        ['git', '-C', str(ROOT), 'rev-parse', '--verify', f'{since}^{{commit}}'], capture_output=True, text=True
    ).stdout.strip() or sys.exit(f'lineage: {since!r} names no commit')
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / 'since'
        subprocess.run(['git', '-C', str(ROOT), 'worktree', 'add', '--detach', '-q', str(tree), since], check=True)
        try:
            old, new = code_fingerprints(tree), code_fingerprints(ROOT)
            moved = sorted({p.split('|')[0] for p in set(old) & set(new) if old[p]['run'] != new[p]['run']})
            print(f'fingerprints moved for {len(moved)} agents: {", ".join(moved) or "none"}', flush=True)
            agents = {run: agent for run, _, agent, _, _ in cases() if agent in moved and (not only or run in only)}
            runs, recorded = sorted(agents), {}
            for side, where in (('old', tree), ('new', ROOT)):  # the same golden runs with REV's code, then this one's
                if not runs:
                    break
                out = Path(tmp) / f'{side}.json'
                done = run_with(where, ['record', '--only', ','.join(runs), '--file', str(out)])
                print(f'golden runs recorded with the code at {where}: exit {done.returncode}', flush=True)
                if done.returncode:
                    sys.exit(f'recording the golden runs with the code at {where} failed:\n{done.stderr[-3000:]}')
                recorded[side] = json.loads(out.read_text())
            passed = same_runs(recorded['old'], recorded['new'], runs, agents) if runs else set()
            suite_entries = suite_lineage(tree, Path(tmp), since)
            # the runs are evidence for the code fingerprinted, and only for it (no runs: no agent's evidence to check)
            suites_now = suite_fingerprints(ROOT) if suite_entries else {}
            moved_since = bool(runs) and code_fingerprints(ROOT) != new
            if moved_since or any(suites_now[e['suite']] != e['new'] for e in suite_entries):
                sys.exit('lineage: the checkout changed while the golden runs ran; nothing written, run it again')
        finally:
            subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(tree)], check=False)
    from uncertain_rl.registry import make_env

    golden_classes = {}
    for _, _, agent, _, env_name in cases():
        env = make_env(env_name, ENV_SIZES.get(env_name, 1), 42)
        golden_classes.setdefault(agent, set()).add(f'{type(env).__module__}.{type(env).__qualname__}')
    commit = subprocess.run(
        ['git', '-C', str(ROOT), 'rev-parse', '--short', since], capture_output=True, text=True
    ).stdout.strip()
    here = machine()
    evidence = (
        f"golden runs {', '.join(runs)} bit-identical with the code at {commit} and after it, both run on "
        f"{here['cpu']} (jax {here['jax']}), {time.strftime('%Y-%m-%d')}"
    )
    entries, refused = equivalences(old, new, passed, golden_classes, evidence)
    entries += suite_entries
    for line in refused:
        print(f'not shown: {line}')
    table = json.loads(EQUIVALENT.read_text())
    have = {(e['old'], e['new']) for e in table['replaced']}
    fresh = [e for e in entries if (e['old'], e['new']) not in have]
    table['replaced'] += fresh
    EQUIVALENT.write_text(json.dumps(table, indent=1) + '\n')
    print(
        f'wrote {len(fresh)} equivalences to {EQUIVALENT.relative_to(ROOT)} ({len(entries) - len(fresh)} already there)'
    )
    return len(fresh)


if __name__ == '__main__':
    p = argparse.ArgumentParser(description='Golden runs of every registered agent.')
    p.add_argument('what', choices=('list', 'record', 'check', 'lineage'))
    p.add_argument('--since', default='', help='lineage: the revision whose stored records the refactor keeps')
    p.add_argument(
        '--only', default='', help='comma-separated runs (CASE@ENV) instead of all (lineage: of the moved agents)'
    )
    p.add_argument('--file', default=str(GOLDEN), help='the golden file (default: tests/golden/golden_runs.json)')
    a = p.parse_args()
    only = [r for r in a.only.split(',') if r]
    if a.what == 'list':
        for run, _, agent, overrides, env in cases():
            print(f'{run}  ({agent}, {overrides or "defaults"})')
        sys.exit(0)
    if a.what == 'lineage':
        if not a.since:
            sys.exit('lineage needs --since REV (the revision before the refactor)')
        lineage(a.since, only or None)
        sys.exit(0)
    if a.what == 'record':
        path = Path(a.file)
        kept = json.loads(path.read_text()) if only and path.exists() else None
        if kept is not None and not same_kind(kept['machine']):
            sys.exit(
                f"record --only: {path} was recorded on {kept['machine']}, and this is {machine()}: one file "
                f"holds one machine kind's runs, so record them all here (without --only)"
            )
        data = record(only)
        if kept is not None:  # record some runs again, keep the others
            data = dict(kept, **{k: v for k, v in data.items() if k != 'runs'}, runs={**kept['runs'], **data['runs']})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + '\n')
        print(f'wrote {path} ({len(data["runs"])} runs)')
    else:
        golden = json.loads(Path(a.file).read_text())
        exact = same_kind(golden['machine'])
        print(
            f"checking {'bit for bit' if exact else f'within tolerance (rtol {RTOL:g}; integers bit for bit)'}: "
            f"recorded on {golden['machine']}, checking on {machine()}"
        )
        if only:
            golden = dict(golden, runs={k: v for k, v in golden['runs'].items() if k in only})
        missing = [run for run, *_ in cases() if run not in golden['runs'] and (not only or run in only)]
        problems = compare(golden, record(list(golden['runs'])), exact) + [f'{r}: no golden record' for r in missing]
        print(
            '\n'.join(problems)
            if problems
            else f"{'bit-identical' if exact else 'within tolerance'}: {len(golden['runs'])} runs"
        )
        sys.exit(1 if problems else 0)
