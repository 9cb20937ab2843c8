"""`uncertain-rl suite`: the quick profile end to end. A killed suite (SIGKILL: a lost machine, nothing runs on exit)
keeps the records it finished, and the rerun trains only the rest; bsuite's own loader and Deep Sea analysis, run on
the suite's CSV logs, give each seed's sweep the score the store's records give it."""
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

from uncertain_rl import suite

COMMAND = [sys.executable, '-m', 'uncertain_rl', 'suite', 'run', '--agents', 'boot_dqn', '--suite', 'deep_sea',
           '--profile', 'quick', '--no-progress', '--out']


def finished(out) -> dict:
    "key -> finished time of the records in the store (empty while there is no store yet)."
    path = out / suite.STORE_FILE
    if not path.is_file(): return {}
    con = sqlite3.connect(path, timeout=60)
    try: return dict(con.execute('SELECT key, finished FROM records'))
    except sqlite3.OperationalError: return {}                     # the table is not created yet
    finally: con.close()


@pytest.fixture(scope='module')
def killed_then_resumed(tmp_path_factory):
    "Run the quick suite, SIGKILL it once the first setting's records are stored, then run the same command again."
    out = tmp_path_factory.mktemp('suite')
    proc = subprocess.Popen([*COMMAND, str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 300
    while len(finished(out)) < 2 and proc.poll() is None and time.time() < deadline: time.sleep(.1)
    proc.kill()
    proc.wait()
    before = finished(out)
    again = subprocess.run([*COMMAND, str(out)], capture_output=True, text=True, timeout=600)
    return out, before, again


def test_a_killed_suite_resumes_without_recomputing_finished_records(killed_then_resumed):
    out, before, again = killed_then_resumed
    assert len(before) == 2, f'the kill should land after the first setting (2 seeds), found {len(before)} records'
    assert again.returncode == 0, again.stdout + again.stderr
    assert '2 records trained, 2 already stored' in again.stdout
    after = finished(out)
    assert len(after) == 4 and all(after[k] == t for k, t in before.items())   # the first two untouched


def test_bsuite_analysis_scores_the_suite_logs_as_the_store_does(killed_then_resumed):
    "Per seed: bsuite's `load_one_result_set` on the CSV directory, then bsuite's Deep Sea `score`."
    from bsuite.experiments.deep_sea import analysis
    from bsuite.logging.csv_load import load_one_result_set
    out, _, _ = killed_then_resumed
    records = suite.load_records(out)
    ours = {r['seed']: [] for r in records}
    for r in records: ours[r['seed']].append(r['metrics']['beats_dithering'])
    append = getattr(pd.Series, 'append', None)
    pd.Series.append = lambda self, other: pd.concat([self, other])       # removed in pandas 2; bsuite 0.3.6 calls it
    try:
        for seed, beats in ours.items():
            folder = suite.csv_dir(out, next(r for r in records if r['seed'] == seed))
            theirs = analysis.score(load_one_result_set(str(folder)))
            assert theirs == np.mean(beats), (seed, theirs, beats)
    finally:
        if append is None: del pd.Series.append
        else: pd.Series.append = append
    rows = suite.report(out)
    assert rows[0]['seeds'] == 2 and json.loads((out / 'leaderboard.json').read_text())[0]['agent'] == 'boot_dqn'
    assert (out / 'leaderboard.png').stat().st_size > 10_000
    claims = json.loads((out / 'claims.json').read_text())
    assert {c['verdict'] for c in claims} == {'not measured'}                  # two seeds: no claim is tested
    assert "The papers' claims" in (out / 'leaderboard.md').read_text()


def test_two_processes_share_one_store_without_training_a_run_twice(tmp_path):
    "The same command twice at once into one directory: each setting is claimed by one process, trained once."
    procs = [subprocess.Popen([*COMMAND, str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    trained = [int(re.search(r'(\d+) records trained', o).group(1)) for o in outs]
    assert sum(trained) == 4, outs                                             # without claims: 8
    assert len(finished(tmp_path)) == 4
    con = sqlite3.connect(tmp_path / suite.STORE_FILE)
    assert con.execute('SELECT count(*) FROM claims').fetchone()[0] == 0        # every claim released
    con.close()


def test_cartpole_noise_quick_profile_is_scored_as_bsuite_scores_it(tmp_path):
    "bsuite's four runs of a noise scale are one call with different seeds; bsuite's cartpole_noise analysis agrees."
    from bsuite.experiments.cartpole_noise import analysis
    from bsuite.logging.csv_load import load_one_result_set
    counts = suite.run(['dqn'], 'cartpole_noise', 'quick', tmp_path)
    assert counts == dict(trained=8, stored=0, in_flight=0, unsupported=0)
    records = suite.load_records(tmp_path)
    assert len({r['metrics']['prng_seed'] for r in records}) == 8                 # no two runs share a seed
    assert len({r['metrics']['raw_return'] for r in records}) > 1
    for seed in (0, 1):
        mine = [r for r in records if r['seed'] == seed]
        theirs = analysis.score(load_one_result_set(str(suite.csv_dir(tmp_path, mine[0]))))
        assert abs(theirs - suite.cartpole_summary(mine, [seed])['score']) < 1e-12, (seed, theirs)


@pytest.mark.slow
def test_bsuite_analysis_in_its_own_venv_scores_as_the_store_does(tmp_path):
    "bsuite 0.3.6's analysis with the pandas < 2 it was written for (`benchmarks/bsuite_oracle.py`, its own venv)."
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'benchmarks'))
    import bsuite_oracle
    suite.run(['dqn'], ['deep_sea', 'cartpole_noise'], 'quick', tmp_path)
    rows = bsuite_oracle.compare(tmp_path, Path(__file__).resolve().parent.parent / '.venv-bsuite')
    assert {name for _, name, _, _ in rows} == {'deep_sea', 'cartpole_noise'} and len(rows) == 4
    for folder, name, ours, theirs in rows: assert theirs is not None and abs(ours - theirs) < 1e-12, (folder, name)


COMMITTED = Path(__file__).resolve().parent.parent / 'benchmarks' / 'results' / 'suite' / 'cpu'


@pytest.mark.parametrize('profile', ['cpu', 'bsuite'])
def test_the_committed_leaderboard_is_what_the_committed_store_gives(tmp_path, profile):
    "The Results page's leaderboards and claims are regenerated from the committed stores, and agree with the files."
    committed = COMMITTED.parent / profile
    shutil.copytree(committed, tmp_path / profile)
    rows = suite.report(tmp_path / profile)
    assert json.loads(json.dumps(rows)) == json.loads((committed / 'leaderboard.json').read_text())
    for name in ('claims.json', 'leaderboard.md'):
        assert (tmp_path / profile / name).read_text() == (committed / name).read_text(), name
    assert {r['profile'] for r in rows} == {profile}
    assert all(r['seeds'] == suite.PROFILES[profile].seeds for r in rows)


@pytest.mark.slow
def test_bsuite_analysis_scores_the_committed_store_as_it_does():
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'benchmarks'))
    import bsuite_oracle
    rows = bsuite_oracle.compare(COMMITTED, Path(__file__).resolve().parent.parent / '.venv-bsuite')
    assert rows and all(theirs is not None and abs(ours - theirs) < 1e-12 for _, _, ours, theirs in rows)
    records = suite.load_records(COMMITTED)                  # the runs kept without logs: the H100's, whose logs stayed there
    assert all(r['device'].startswith('gpu') for r in records if r['csv'] is None)
    checked = {(folder, name) for folder, name, _, _ in rows}
    assert not checked & set(bsuite_oracle.unlogged(COMMITTED))
