"""`uncertain-rl suite`: the quick profile end to end. A killed suite (SIGKILL: a lost machine, nothing runs on exit)
keeps the records it finished, and the rerun trains only the rest; bsuite's own loader and analysis, run on the
suite's CSV logs, give each seed's sweep the score the store's records give it; records are keyed by the code that
computes them, so a commit that changes only documentation or another agent leaves them valid."""

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uncertain_rl.suites import fingerprints, report, store, verdicts
from uncertain_rl.suites.core import claims, setting_key, suites
from conftest import ROOT

COMMAND = [
    sys.executable,
    '-m',
    'uncertain_rl',
    'suite',
    'run',
    '--agents',
    'boot_dqn',
    '--suite',
    'deep_sea',
    '--profile',
    'quick',
    '--no-progress',
    '--out',
]


def finished(out) -> dict:
    "key -> finished time of the records in the store (empty while there is no store yet)."
    path = out / store.STORE_FILE
    if not path.is_file():
        return {}
    con = sqlite3.connect(path, timeout=60)
    try:
        return dict(con.execute('SELECT key, finished FROM records'))
    except sqlite3.OperationalError:
        return {}  # the table is not created yet
    finally:
        con.close()


def bsuite_series_append():
    "bsuite 0.3.6 calls `pd.Series.append`, removed in pandas 2: put it back as what it was, for a test's duration."
    append = getattr(pd.Series, 'append', None)
    pd.Series.append = lambda self, other: pd.concat([self, other])
    return lambda: setattr(pd.Series, 'append', append) if append is not None else delattr(pd.Series, 'append')


@pytest.fixture(scope='module')
def killed_then_resumed(tmp_path_factory):
    "Run the quick suite, SIGKILL it once the first call's records are stored, then run the same command again."
    out = tmp_path_factory.mktemp('suite')
    proc = subprocess.Popen([*COMMAND, str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 300
    while len(finished(out)) < 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    before = finished(out)
    again = subprocess.run([*COMMAND, str(out)], capture_output=True, text=True, timeout=600)
    return out, before, again


@pytest.mark.long
def test_a_killed_suite_resumes_without_recomputing_finished_records(killed_then_resumed):
    out, before, again = killed_then_resumed
    assert len(before) == 2, f'the kill should land after the first call (2 seeds), found {len(before)} records'
    assert again.returncode == 0, again.stdout + again.stderr
    assert '2 records trained, 2 already stored' in again.stdout
    after = finished(out)
    assert len(after) == 4 and all(after[k] == t for k, t in before.items())  # the first two untouched


@pytest.mark.long  # its fixture, a killed and resumed suite, is the long tests' above: one run of it for the three
def test_bsuite_analysis_scores_the_suite_logs_as_the_store_does(killed_then_resumed):
    "Per seed: bsuite's `load_one_result_set` on the sweep's CSV directory, then bsuite's Deep Sea `score`."
    from bsuite.experiments.deep_sea import analysis
    from bsuite.logging.csv_load import load_one_result_set

    out, _, _ = killed_then_resumed
    records = [r for r in store.load_records(out) if r['setting_index'] is not None]  # Deep Sea 8 is off the sweep
    assert records and all(r['csv'].startswith('bsuite/') for r in records)
    restore = bsuite_series_append()
    try:
        for seed in {r['seed'] for r in records}:
            mine = [r for r in records if r['seed'] == seed]
            theirs = analysis.score(load_one_result_set(str(out / Path(mine[0]['csv']).parent)))
            assert theirs == np.mean([r['metrics']['beats_dithering'] for r in mine]), (seed, theirs)
    finally:
        restore()
    rows = report.report(out)
    assert (
        rows[0]['seeds'] == 2 and json.loads((out / 'leaderboard.json').read_text())['rows'][0]['agent'] == 'boot_dqn'
    )
    # the quick profile teaches (README): Bootstrapped DQN solves Deep Sea 10 within its 150 episodes (median 85 on
    # the cpu profile's ten seeds), so its score is above 0 where a dithering agent's is 0
    assert rows[0]['score'] > 0, rows[0]['seed_scores']
    assert (out / 'leaderboard.png').stat().st_size > 10_000
    results = json.loads((out / 'claims.json').read_text())
    assert not any(c['comparisons'] for c in results) and len(results) == len(claims())
    assert {c['verdict'] for c in results if not c['superseded']} == {'not yet run'}
    assert "The papers' claims" in (out / 'leaderboard.md').read_text()


@pytest.mark.long
def test_two_processes_share_one_store_without_training_a_run_twice(tmp_path):
    "The same command twice at once into one directory: each call is leased by one process, trained once."
    procs = [
        subprocess.Popen([*COMMAND, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    trained = [int(re.search(r'(\d+) records trained', o).group(1)) for o in outs]
    assert sum(trained) == 4, outs  # without leases: 8
    assert len(finished(tmp_path)) == 4
    con = sqlite3.connect(tmp_path / store.STORE_FILE)
    assert con.execute('SELECT count(*) FROM leases').fetchone()[0] == 0  # every lease released
    con.close()


def test_cartpole_noise_quick_profile_is_scored_as_bsuite_scores_it(tmp_path):
    "The five noise scales are one call, each run with its own scale; bsuite's cartpole_noise analysis agrees."
    from bsuite.experiments.cartpole_noise import analysis
    from bsuite.logging.csv_load import load_one_result_set

    counts = store.run(['dqn'], 'cartpole_noise', 'quick', tmp_path)
    assert counts == dict(trained=5, stored=0, copied=0, in_flight=0, unsupported=0, other_shards=0)
    records = store.load_records(tmp_path)
    assert sorted(r['setting']['noise_scale'] for r in records) == [0.1, 0.3, 1.0, 3.0, 10.0]
    assert len({r['metrics']['raw_return'] for r in records}) > 1
    theirs = analysis.score(load_one_result_set(str(tmp_path / Path(records[0]['csv']).parent)))
    ours = suites()['cartpole_noise'].summary(records, [0])['seed_scores'][0]
    assert abs(theirs - ours) < 1e-12, (theirs, ours)


def fingerprint_in_a_copy(tmp_path, name: str, edits: dict) -> str:
    "boot_dqn's code fingerprint on Deep Sea, computed in a fresh process from a copy of the package with `edits`."
    root = tmp_path / name
    shutil.copytree(ROOT / 'uncertain_rl', root / 'uncertain_rl')
    for path, (old, new) in edits.items():
        text = (root / 'uncertain_rl' / path).read_text()
        assert text.count(old) == 1, (path, old)
        (root / 'uncertain_rl' / path).write_text(text.replace(old, new))
    code = (
        'from uncertain_rl.suites.fingerprints import run_fingerprint; from uncertain_rl.envs.deep_sea import DeepSea; '
        "print(run_fingerprint('boot_dqn', DeepSea(10)))"
    )
    out = subprocess.run(
        [sys.executable, '-c', code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={'PYTHONPATH': str(root), 'PATH': '', 'UNCERTAIN_RL_CPU_DEVICES': '1'},
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.long
def test_records_stay_valid_across_commits_that_do_not_change_the_agents_code(tmp_path):
    """A docs-only change, a change to another agent and a change to the driver (`run_chunked`: progress, layout,
    checkpoints) keep boot_dqn's records' key; a change to its learning, or to the training program, does not."""
    base = fingerprint_in_a_copy(tmp_path, 'base', {})
    docs = {
        'agents/ensemble_q.py': ('"The standard loss `', '"The standard TD loss, reworded: `'),
        'loops.py': ('# %% auto #0', '# %% auto #0, a comment changed'),
    }
    other = {'agents/tdu.py': ('def make_tdu(', 'def _unused_helper(): return 1\n\n\ndef make_tdu(')}
    driver = {
        'loops.py': ("bar.set_postfix(episodes=int(np.min(episodes)))", "bar.set_postfix(done=int(np.min(episodes)))")
    }
    learning = {'learning.py': ('    return td**2\n', '    return 1.0001 * td**2\n')}
    program = {
        'loops.py': (
            "reset = lambda x: jnp.where(done, jnp.zeros_like(x), x)",
            "reset = lambda x: jnp.where(done, 0 * x, x)",
        )
    }
    assert fingerprint_in_a_copy(tmp_path, 'docs', docs) == base
    assert fingerprint_in_a_copy(tmp_path, 'other', other) == base
    assert fingerprint_in_a_copy(tmp_path, 'driver', driver) == base
    assert fingerprint_in_a_copy(tmp_path, 'learning', learning) != base
    assert fingerprint_in_a_copy(tmp_path, 'program', program) != base


@pytest.mark.data
@pytest.mark.slow
def test_bsuite_analysis_in_its_own_venv_scores_as_the_store_does(tmp_path):
    "bsuite 0.3.6's analysis with the pandas < 2 it was written for (`benchmarks/bsuite_oracle.py`, its own venv)."
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bsuite_oracle

    store.run(['dqn'], ['deep_sea', 'cartpole_noise'], 'quick', tmp_path)
    rows = bsuite_oracle.compare(tmp_path, ROOT / '.venv-bsuite')
    assert {name for _, name, _, _ in rows} == {'deep_sea', 'cartpole_noise'} and len(rows) == 3
    for folder, name, ours, theirs in rows:
        assert theirs is not None and abs(ours - theirs) < 1e-12, (folder, name)


COMMITTED = ROOT / 'benchmarks' / 'results' / 'suite' / 'cpu'


def same_to_rounding(a, b, rel: float = 1e-15) -> bool:
    "JSON data `a` and `b` equal, floats within `rel` (a few units in the last place of a double) of each other."
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_to_rounding(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_to_rounding(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= rel * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def test_same_to_rounding_can_fail():
    assert same_to_rounding({'p': [0.028230359653669566]}, {'p': [0.02823035965366956]})
    assert not same_to_rounding({'p': [0.0282303596536695]}, {'p': [0.02823035965366956]})
    assert not same_to_rounding({'p': 1}, {'p': 1.0}) and not same_to_rounding({'p': 1.0}, {'q': 1.0})


@pytest.mark.data
def test_the_committed_report_is_what_the_committed_store_gives(tmp_path):
    """The Results page's tables, aggregates and claims are regenerated from the committed store, and agree with its
    files: the Markdown to the byte, the JSON to the last few bits of a float (an exact test's p-value computed on an
    AMD EPYC differs from the committing machine's in its 17th digit: 0.028230359653669566 against
    0.02823035965366956)."""
    shutil.copytree(COMMITTED, tmp_path / 'cpu')
    report.report(tmp_path / 'cpu')
    assert (tmp_path / 'cpu' / 'leaderboard.md').read_text() == (COMMITTED / 'leaderboard.md').read_text()
    for name in ('leaderboard.json', 'claims.json'):
        ours, committed = (json.loads((root / name).read_text()) for root in (tmp_path / 'cpu', COMMITTED))
        assert same_to_rounding(ours, committed), name
    figures = lambda root: sorted(str(p.relative_to(root)) for p in root.rglob('*.png'))  # noqa: E731
    assert figures(tmp_path / 'cpu') == figures(COMMITTED)  # none left over from an earlier report
    agg = json.loads((COMMITTED / 'leaderboard.json').read_text())['aggregates']
    assert (COMMITTED / 'profiles.png').exists() == any(a['agents'] for a in agg.values())
    ran = {c['claim'] for c in json.loads((COMMITTED / 'claims.json').read_text()) if c['verdict'] != 'not yet run'}
    assert {p.stem for p in (COMMITTED / 'claims').glob('*.png')} == ran


@pytest.mark.data
def test_the_committed_claims_ran_their_declared_designs():
    """Every claim record is a declared run of its claim, with the configuration its arm gives (checked from the
    records)."""
    records = store.load_records(COMMITTED)
    for name, claim in claims().items():
        mine = [r for r in records if r['design'] == f'claim:{name}']
        if not mine:
            continue  # nothing stored: nothing to check (a gpu claim, say)
        designs = store.designs_of(claim)  # one design, or one per experiment (a capability claim)
        assert {r['suite'] for r in mine} <= {d.suite.name for d in designs}, name
        for design in designs:
            declared = {(setting_key(run.setting), run.seed): run.budget for run in design.runs}
            for arm in claim.arms:
                configs = {
                    setting_key(run.setting): store.config_json(config)
                    for runs, config in store.arm_calls(design, arm)
                    for run in runs
                }
                for r in (r for r in mine if r['arm'] == arm.label and r['suite'] == design.suite.name):
                    setting = setting_key(r['setting'])
                    assert (setting, r['seed']) in declared, (name, arm.label, setting, r['seed'])
                    assert r['config'] == configs[setting], (name, arm.label)
                    assert r['budget'] == declared[setting, r['seed']], (name, arm.label)
                    assert r['stop_early'] == design.stop_early
    assert any(r['design'].startswith('claim:') for r in records)


@pytest.mark.data
@pytest.mark.slow
def test_bsuite_analysis_scores_the_committed_store_as_it_does():
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bsuite_oracle

    rows = bsuite_oracle.compare(COMMITTED, ROOT / '.venv-bsuite')
    assert rows and all(theirs is not None and abs(ours - theirs) < 1e-12 for _, _, ours, theirs in rows)


@pytest.mark.data
def test_each_committed_sweep_lies_in_one_bsuite_folder_per_seed():
    """bsuite's analysis reads one agent's sweep from one folder per seed. Every committed row of the main table (its
    arm, suite, code and jax; code that replaced code without changing behaviour counts as that code: `same_code`)
    keeps its CSVs in one sweep folder, though PE-DQN's five cartpole_noise scales ran five configurations (its C51
    support follows each scale's declared return range); and bsuite's own cartpole_noise analysis scores each of
    PE-DQN's seeds from that folder as the store does."""
    from bsuite.experiments.cartpole_noise import analysis
    from bsuite.logging.csv_load import load_one_result_set

    records = [r for r in store.load_records(COMMITTED) if r['design'] == 'table:cpu' and r['csv']]
    rows = {}
    for r in records:
        code, suite_code = (min(fingerprints.same_code(r[k])) for k in ('code', 'suite_code'))
        rows.setdefault((r['arm'], r['suite'], code, suite_code, r['jax'], r['jaxlib']), []).append(r)
    for row, rs in rows.items():
        assert len({Path(r['csv']).parts[1] for r in rs}) == 1, row
        assert all((COMMITTED / r['csv']).exists() for r in rs), row
    pe_dqn = [r for r in records if r['agent'] == 'pe_dqn' and r['suite'] == 'cartpole_noise']
    assert len({r['config_hash'] for r in pe_dqn}) == 5 and len(pe_dqn) == 20
    restore = bsuite_series_append()
    try:
        for seed in sorted({r['seed'] for r in pe_dqn}):
            mine = [r for r in pe_dqn if r['seed'] == seed]
            theirs = analysis.score(load_one_result_set(str(COMMITTED / Path(mine[0]['csv']).parent)))
            ours = suites()['cartpole_noise'].summary(mine, [seed])['seed_scores'][0]
            assert abs(theirs - ours) < 1e-12, (seed, theirs, ours)
    finally:
        restore()


@pytest.mark.data
def test_every_committed_csv_is_named_by_a_record():
    """bsuite's analysis reads every CSV in a sweep's folder, so a log that no record names (a merge that copied the
    log of a record the store already held, a run killed mid-call) would be scored as a run of that agent. Every CSV
    under the committed store is the log of one of its records, and every record's log is there."""
    named = {r['csv'] for r in store.load_records(COMMITTED) if r['csv']}
    files = {str(p.relative_to(COMMITTED)) for p in COMMITTED.rglob('*.csv')}
    assert files == named, (sorted(files - named)[:5], sorted(named - files)[:5])


def without_timings(x):
    "A report's JSON without what depends on the machine's load: seconds and hardware."
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if 'seconds' not in k and k != 'hardware'}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


@pytest.mark.long
def test_suite_submit_on_submitits_local_executor_gives_the_unsharded_store(tmp_path, killed_then_resumed):
    """`suite submit run --shards 2 --executor local`: two submitit jobs, each `--shard k/2` into its own store,
    merged into --out: the same records (keys and metrics) and the same report as the one-process run of the
    fixture (which was itself killed and resumed)."""
    whole = killed_then_resumed[0]
    parts = tmp_path / 'parts'
    r = subprocess.run(
        [
            sys.executable,
            '-m',
            'uncertain_rl',
            'suite',
            'submit',
            'run',
            '--agents',
            'boot_dqn',
            '--suite',
            'deep_sea',
            '--profile',
            'quick',
            '--shards',
            '2',
            '--executor',
            'local',
            '--timeout-min',
            '20',
            '--out',
            str(parts),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert '(local)' in r.stdout and '4 merged' in r.stdout, r.stdout
    by_key = lambda d: {rec['key']: rec['metrics'] for rec in store.load_records(d)}
    assert by_key(parts) == by_key(whole)
    assert sorted(p.name for p in (parts / 'shards').iterdir()) == ['1-of-2', '2-of-2']
    report.report(parts)
    report.report(whole)
    assert without_timings(json.loads((parts / 'leaderboard.json').read_text())) == without_timings(
        json.loads((whole / 'leaderboard.json').read_text())
    )


@pytest.mark.data
def test_the_committed_main_table_ran_each_agents_registered_default():
    """Every main-table record computed by this checkout's code ran its agent's registered default as its setting's
    environment resolves it (bsuite's protocol: no preset; PE-DQN's support from the declared return range), with
    the profile's budget: checked from the records, whatever the report shows."""
    records = [r for r in store.load_records(COMMITTED) if r['design'] == 'table:cpu']
    by_row, checked = {}, 0
    for r in records:
        by_row.setdefault((r['suite'], r['agent']), []).append(r)
    for (suite_name, agent), rs in sorted(by_row.items()):
        (design,) = store.table_designs([agent], suite_name, 'cpu')
        declared = {
            setting_key(run.setting): (store.config_json(config), run.budget)
            for runs, config in store.arm_calls(design, design.arms[0])
            for run in runs
        }
        for r in (r for r in rs if verdicts.is_current(r, suite_name)):
            setting = setting_key(r['setting'])
            assert (r['config'], r['budget']) == declared[setting], (agent, suite_name, setting)
            checked += 1
    assert checked >= 300


@pytest.mark.data
def test_every_committed_record_was_computed_by_this_checkouts_suite_code():
    """A record's key covers its suite's code (how a run is set up, stopped and scored): a change to it must rerun the
    suite's records or show that it computes the same (the ledger's `same_code`), never leave records computed the old
    way counted as current."""
    now = {name: fingerprints.same_code(fingerprints.suite_fingerprint(s)) for name, s in suites().items()}
    stale = {
        (r['suite'], r['suite_code']) for r in store.load_records(COMMITTED) if r['suite_code'] not in now[r['suite']]
    }
    assert not stale, stale


@pytest.mark.data
def test_every_committed_record_is_keyed_by_its_own_columns():
    """A stored key is `store.run_key` of the record's own columns (agent, configuration, suite and its code, setting,
    seed, budget, stop rule, training code, jax): a record edited by hand, or keyed by a rule the runner no longer
    computes, would never be found by the runner and would be trained again."""
    records = store.load_records(COMMITTED)
    wrong = [(r['design'], r['arm'], r['key']) for r in records if store.record_key(r) != r['key']]
    assert len(records) > 1000 and not wrong, wrong[:5]


def _old_format_store(out: Path, rows: list) -> None:
    "A store as written before records were keyed by their suite's code (no column `suite_code`)."
    columns = [c for c in store.RECORD_COLUMNS if c != 'suite_code']
    con = sqlite3.connect(out / store.STORE_FILE)
    con.execute(f"CREATE TABLE records ({', '.join(columns)}, PRIMARY KEY ({', '.join(store.KEYED)}))")
    con.execute('CREATE TABLE leases (key TEXT PRIMARY KEY, owner TEXT, since TEXT)')
    con.executemany(
        f"INSERT INTO records ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [tuple(r[c] for c in columns) for r in rows],
    )
    con.commit()
    con.close()


def test_a_store_from_before_suite_code_keys_names_its_migration(tmp_path):
    """A store written before records were keyed by their suite's code is refused with a `ValueError` naming the file
    and the migration tool at the commit that still has it, before any record is read."""
    _old_format_store(tmp_path, [])
    with pytest.raises(ValueError, match=r"before records were keyed.*git show 861388c:tools/migrate_suite_code\.py"):
        store.load_records(tmp_path)


@pytest.mark.data
def test_bsuite_summary_analysis_scores_the_committed_logs_as_the_report_does():
    """Every complete row of the committed cpu table on one of bsuite's experiments: bsuite 0.3.6's own analysis
    (`load_one_result_set` on each seed's folder of bsuite CSV files, then `summary_analysis.BSUITE_INFO[...].score`)
    gives each seed the score the report gives it, so the row's score is bsuite's mean over seeds; and bsuite's
    `ave_score_by_tag` over those scores gives the report's seven capabilities (issue 62, item 5)."""
    from bsuite.experiments import summary_analysis
    from bsuite.logging.csv_load import load_one_result_set

    records = store.load_records(COMMITTED)
    rows = [r for r in report.leaderboard(records) if r['profile'] == 'cpu' and not r['stale']]
    caps = report.capabilities(rows)['cpu']
    checked, restore = 0, bsuite_series_append()
    try:
        for row in rows:
            mine = [
                r
                for r in records
                if (r['design'], r['agent'], r['suite']) == ('table:cpu', row['agent'], row['suite'])
                and r['setting_index'] is not None
                and verdicts.is_current(r, row['suite'])
            ]
            seeds = sorted({r['seed'] for r in mine})
            if len(mine) != row['runs']:  # a setting off bsuite's sweep (no bsuite file): not bsuite's to score
                continue
            folders = {s: {str(COMMITTED / Path(r['csv']).parent) for r in mine if r['seed'] == s} for s in seeds}
            assert all(len(f) == 1 for f in folders.values()), folders
            score = summary_analysis.BSUITE_INFO[row['suite']].score
            theirs = [float(score(load_one_result_set(folders[s].pop()))) for s in seeds]
            assert np.allclose(theirs, row['seed_scores'], atol=1e-12, equal_nan=True), (row['suite'], theirs)
            checked += 1
    finally:
        restore()
    assert checked >= 17, checked  # dqn's rows on bsuite's other experiments at least
    for agent, a in caps.items():
        table = pd.DataFrame(
            [
                dict(bsuite_env=n, score=s, tags=str(summary_analysis.BSUITE_INFO[n].tags))
                for n, s in a['experiments'].items()
            ]
        )
        theirs = summary_analysis.ave_score_by_tag(table, None).set_index('tag').score
        for c, v in a['capabilities'].items():
            assert (v is None and np.isnan(theirs[c])) or abs(v - theirs[c]) < 1e-12, (agent, c, v, theirs[c])


def test_every_agent_has_a_fingerprint_on_every_environment_it_runs_on():
    """The store keys every record by `run_fingerprint`; it reads the source of every function a run reaches, so a
    construct it cannot read (a lambda inside a literal, a builtin where code was expected) would break only the agent
    and environment that reach it: every registered pair is fingerprinted here, and agents that train different code
    get different fingerprints."""
    import re

    from uncertain_rl import registry
    from uncertain_rl.experiments import make_environment
    from uncertain_rl.spec import Experiment
    from uncertain_rl.suites.fingerprints import run_fingerprint

    found = {}
    for agent in registry.AGENTS:
        for env_name in registry.ENVS:
            if registry.runs_on(agent, env_name):
                env = make_environment(Experiment(agent, env_name, episodes=1))[0]
                found[agent, env_name] = run_fingerprint(agent, env)
    assert len(found) >= 150, len(found)
    assert all(re.fullmatch(r'[0-9a-f]{16}', f) for f in found.values())
    on_deep_sea = {a: f for (a, e), f in found.items() if e == 'deep_sea'}
    assert on_deep_sea['dqn'] != on_deep_sea['boot_dqn'] != on_deep_sea['tdu']
