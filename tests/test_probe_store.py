"""Issue 59, items 5 and 6, from a probe of the results store. Leases: a lease taken in another time zone is live
here, one dated ahead of this clock has expired, a call whose lease another process took stops, and the count of work
in flight counts live holders only. Merge: all or nothing, every source checked before anything is written, records
of a suite or agent this code does not know refused; the report refuses them in one line too."""

import dataclasses
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uncertain_rl.app.cli import main
from uncertain_rl.suites import cluster, report, store
from uncertain_rl.suites.core import Arm, suites

# -- leases ---------------------------------------------------------------------------------------------------------


def sleeper() -> subprocess.Popen:
    "A live process of this host, to hold leases."
    return subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])


def owner_of(proc: subprocess.Popen) -> str:
    return f'{socket.gethostname()}:{proc.pid}'


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()


@pytest.fixture
def time_zone():
    "Set this process's time zone (`TZ`, `time.tzset`) for a test; the old one is restored after it."
    old = os.environ.get('TZ')

    def set_zone(zone: str) -> None:
        os.environ['TZ'] = zone
        time.tzset()

    yield set_zone
    if old is None:
        os.environ.pop('TZ', None)
    else:
        os.environ['TZ'] = old
    time.tzset()


def test_a_lease_taken_in_another_time_zone_is_live_here(tmp_path, time_zone):
    """A process in Los Angeles leases a key and keeps running; this process, in Tokyo, must not take it: both
    would train the same call into one checkpoint folder."""
    store.open_store(tmp_path).close()
    code = (
        'import sys, time\n'
        'from uncertain_rl.suites import store\n'
        'con = store.open_store(sys.argv[1])\n'
        "print(store.lease(con, ['a']), flush=True)\n"
        'con.close()\n'
        'time.sleep(300)\n'
    )
    env = dict(os.environ, TZ='America/Los_Angeles')
    child = subprocess.Popen([sys.executable, '-c', code, str(tmp_path)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "['a']"
        time_zone('Asia/Tokyo')
        con = store.open_store(tmp_path)
        assert store.lease(con, ['a']) == [], 'a live lease from another time zone was taken'
        con.close()
    finally:
        stop(child)


def test_a_heartbeat_in_another_time_zone_keeps_its_lease_live(tmp_path, time_zone):
    "A lease renewed by a `Heartbeat` in Los Angeles (after an hour-old stamp) is live for a process in Tokyo."
    holder = sleeper()
    try:
        con = store.open_store(tmp_path)
        assert store.lease(con, ['a'], owner_of(holder)) == ['a']
        with con:
            con.execute("UPDATE leases SET since = 'stale'")
        time_zone('America/Los_Angeles')
        with store.Heartbeat(tmp_path, owner_of(holder), every=0.05):
            time.sleep(0.5)
        time_zone('Asia/Tokyo')
        assert store.lease(con, ['a']) == [], 'a lease renewed in another time zone was taken'
        con.close()
    finally:
        stop(holder)


def shifted(since: str, seconds: float) -> str:
    "A lease's `since` moved by `seconds`, in the format it was written in (epoch seconds, or local clock text)."
    try:
        return repr(float(since) + seconds)
    except ValueError:
        form = '%Y-%m-%dT%H:%M:%S'
        return time.strftime(form, time.localtime(time.mktime(time.strptime(since, form)) + seconds))


def test_a_lease_dated_an_hour_ahead_has_expired(tmp_path):
    """A clock an hour ahead (skew) stamps its lease in the future: it has expired, not held forever."""
    holder = sleeper()
    try:
        con = store.open_store(tmp_path)
        assert store.lease(con, ['a'], owner_of(holder)) == ['a']
        (since,) = con.execute("SELECT since FROM leases WHERE key = 'a'").fetchone()
        with con:
            con.execute("UPDATE leases SET since = ? WHERE key = 'a'", (shifted(since, 3600),))
        assert store.lease(con, ['a']) == ['a'], 'a lease dated an hour ahead is still held'
        con.close()
    finally:
        stop(holder)


def hooked(suite, hook):
    "`suite` whose calls also call `hook(logs, episodes)` after every chunk (the experiment's `on_chunk`)."
    fields = suite.experiment

    def experiment(setting, episodes, stop_early):
        return dict(fields(setting, episodes, stop_early), on_chunk=hook)

    return dataclasses.replace(suite, experiment=experiment)


def design_of(suite, sizes, budget: int, seeds=(0,)) -> store.Design:
    "A tiny Deep Sea design for dqn: one call per size, `seeds` in each, no early stop."
    runs = tuple(store.Run(None, {'size': n, 'mapping_seed': 42}, s, s, budget) for n in sizes for s in seeds)
    return store.Design('table:probe', suite, (Arm('dqn', 'dqn'),), runs, False)


def leases(out: Path) -> dict:
    "key -> owner of the store's leases."
    con = sqlite3.connect(out / store.STORE_FILE)
    try:
        return dict(con.execute('SELECT key, owner FROM leases'))
    finally:
        con.close()


def hand_over(out: Path, owner: str) -> None:
    "Every lease of the store now names `owner` (as a process that thought them expired would take them)."
    con = sqlite3.connect(out / store.STORE_FILE, timeout=60)
    with con:
        con.execute('UPDATE leases SET owner = ?', (owner,))
    con.close()


@pytest.mark.long
def test_a_call_whose_lease_is_taken_stops_and_leaves_it_to_the_taker(tmp_path):
    """Mid-call (after its first checkpoint) another live process takes the call's leases: this process stops that
    call, stores nothing of it, leaves the lease and the checkpoint to the taker, and counts the call in flight."""
    taker, chunks = sleeper(), []

    def take_over(logs, episodes):
        chunks.append(1)
        if len(chunks) == 6 and taker.poll() is None:  # the checkpoint of chunk 5 is saved
            hand_over(tmp_path, owner_of(taker))

    design = design_of(hooked(suites()['deep_sea'], take_over), [5], 40, seeds=(0, 1))
    try:
        counts = store.run_design(design, tmp_path, devices=1)
        assert (counts['trained'], counts['in_flight']) == (0, 2), counts
        assert store.load_records(tmp_path) == []
        assert set(leases(tmp_path).values()) == {owner_of(taker)}  # the taker's, not released by this process
        assert any(p.is_dir() and any(p.iterdir()) for p in (tmp_path / store.CHECKPOINTS_DIR).iterdir())
    finally:
        stop(taker)
    chunks.clear()
    again = store.run_design(design, tmp_path, devices=1)  # the taker died: its leases are stale
    assert (again['trained'], again['in_flight']) == (2, 0), again
    assert len(store.load_records(tmp_path)) == 2 and leases(tmp_path) == {}


def first_call(design: store.Design) -> list:
    "The records-to-be of the first call of `design`'s plan."
    arm = design.arms[0]
    runs, config = store.arm_calls(design, arm, 1)[0]
    return store.call_records_of(design, arm, runs, config, store.versions(store.COMPUTING), 1)


@pytest.mark.long
def test_work_left_to_a_process_that_died_meanwhile_is_trained_not_counted_in_flight(tmp_path):
    """The first call is leased by a live process; it dies while this process trains the second call. At the end the
    first call is leased and trained here: nothing is reported left to a process that no longer exists."""
    holder = sleeper()
    design = design_of(hooked(suites()['deep_sea'], lambda logs, episodes: stop(holder)), [4, 5], 10)
    try:
        con = store.open_store(tmp_path)
        assert store.lease(con, [r['key'] for r in first_call(design)], owner_of(holder))
        con.close()
        counts = store.run_design(design, tmp_path, devices=1)
    finally:
        stop(holder)
    assert (counts['trained'], counts['in_flight']) == (2, 0), counts
    assert len(store.load_records(tmp_path)) == 2


@pytest.mark.long
def test_work_a_live_holder_finished_meanwhile_counts_stored(tmp_path):
    """The first call is leased by a live process, which stores it while this process trains the second call: at the
    end it counts as stored, not in flight."""
    holder, done = sleeper(), []

    def finish_first(logs, episodes):
        if not done:
            done.extend(dict(r, episodes=10, metrics='{}', versions='{}') for r in first_call(design))
            con = sqlite3.connect(tmp_path / store.STORE_FILE, timeout=60)
            store.insert_records(con, [dict(dict.fromkeys(store.RECORD_COLUMNS), **r) for r in done])
            con.close()

    design = design_of(hooked(suites()['deep_sea'], finish_first), [4, 5], 10)
    try:
        con = store.open_store(tmp_path)
        assert store.lease(con, [r['key'] for r in first_call(design)], owner_of(holder))
        con.close()
        counts = store.run_design(design, tmp_path, devices=1)
    finally:
        stop(holder)
    assert (counts['trained'], counts['stored'], counts['in_flight']) == (1, 1, 0), counts


# -- merge and report -----------------------------------------------------------------------------------------------


def record(seed: int, suite: str = 'deep_sea', agent: str = 'dqn') -> dict:
    "A hand-made finished record with its log's path."
    r = dict.fromkeys(store.RECORD_COLUMNS)
    r.update(
        key=store.digest(agent, suite, seed),
        design='table:quick',
        arm='dqn',
        agent=agent,
        config_hash='c1',
        config='{}',
        suite=suite,
        setting_index=0,
        setting='{"size": 10}',
        seed=seed,
        status='done',
        metrics='{"solved": true}',
        versions='{}',
        stop_early=1,
        csv=f'bsuite/{agent}-c1/seed_{seed}/{store.BSUITE_PREFIX}{suite}-0.csv',
    )
    return r


def make_store(d: Path, records: list) -> Path:
    "A store in `d` holding `records`, each with its log."
    con = store.open_store(d)
    for r in records:
        (d / r['csv']).parent.mkdir(parents=True, exist_ok=True)
        (d / r['csv']).write_text(f"episode\n{r['seed']}\n")
    store.insert_records(con, records)
    con.close()
    return d


def contents(d: Path) -> tuple:
    "What a merge may change in `d`: its records' keys and its files but the store's own (None: no `d`)."
    if not d.exists():
        return None
    keys = sorted(r['key'] for r in store.load_records(d)) if (d / store.STORE_FILE).exists() else None
    return keys, sorted(str(p.relative_to(d)) for p in d.rglob('*') if not p.name.startswith(store.STORE_FILE))


@pytest.fixture
def sources(tmp_path):
    "Store `a` (two records with logs) and store `b` (two more, the log of seed 3 gone)."
    a = make_store(tmp_path / 'a', [record(0), record(1)])
    b = make_store(tmp_path / 'b', [record(2), record(3)])
    (b / record(3)['csv']).unlink()
    return a, b


def test_a_merge_whose_second_source_lacks_a_log_writes_nothing(tmp_path, sources):
    out = tmp_path / 'out'
    with pytest.raises(ValueError, match=r"'.*/b' lacks the CSV log 'bsuite/dqn-c1/seed_3/"):
        cluster.merge(out, sources)
    assert not out.exists()  # not even created
    kept = make_store(tmp_path / 'kept', [record(7)])
    before = contents(kept)
    with pytest.raises(ValueError, match='lacks the CSV log'):
        cluster.merge(kept, sources)
    assert contents(kept) == before  # no record, no log of the first source


@pytest.mark.parametrize('field', ['suite', 'agent'])
def test_a_merge_refuses_a_record_of_a_suite_or_agent_this_code_does_not_know(tmp_path, sources, field):
    bad = make_store(tmp_path / 'bad', [record(5), record(6, **{field: 'nope'})])
    out = tmp_path / 'out'
    with pytest.raises(ValueError) as e:
        cluster.merge(out, [sources[0], bad])
    line = str(e.value)
    assert '\n' not in line and str(bad) in line and f"{field} must be one of" in line and "got 'nope'" in line, line
    assert ("'deep_sea'" if field == 'suite' else "'boot_dqn'") in line, line  # what is allowed
    assert not out.exists()


def test_a_merge_that_fails_while_writing_leaves_the_store_as_it_was(tmp_path, sources, monkeypatch):
    "The second log's copy fails (a full disk, say): the first log is removed, no record is stored."
    kept = make_store(tmp_path / 'kept', [record(7)])
    before, copies = contents(kept), []
    real = cluster.shutil.copyfile

    def copy_then_fail(src, dst, **kw):
        copies.append(dst)
        if len(copies) == 2:
            raise OSError('No space left on device')
        return real(src, dst, **kw)

    monkeypatch.setattr(cluster.shutil, 'copyfile', copy_then_fail)
    with pytest.raises(OSError, match='No space left'):
        cluster.merge(kept, [sources[0]])
    assert len(copies) == 2 and contents(kept) == before
    with pytest.raises(OSError, match='No space left'):
        copies.clear()
        cluster.merge(tmp_path / 'new', [sources[0]])
    assert not (tmp_path / 'new').exists()


def test_the_merge_command_answers_in_one_line_and_writes_nothing(tmp_path, sources, capsys):
    bad = make_store(tmp_path / 'bad', [record(5, suite='nope')])
    for source, words in ((sources[1], 'lacks the CSV log'), (bad, "suite must be one of")):
        out = tmp_path / f'out-{source.name}'
        assert main(['suite', 'merge', str(out), str(sources[0]), str(source)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and err.startswith('uncertain-rl: error: ') and words in err, err
        assert not out.exists()


@pytest.mark.parametrize('field', ['suite', 'agent'])
def test_the_report_refuses_a_record_it_does_not_know_in_one_line(tmp_path, field, capsys):
    held = make_store(tmp_path / 'held', [record(0), dict(record(1, **{field: 'nope'}), arm='odd')])
    with pytest.raises(ValueError) as e:
        report.report(held)
    line = str(e.value)
    assert '\n' not in line and f"{field} must be one of" in line and "got 'nope'" in line, line
    assert "design 'table:quick', arm 'odd'" in line, line
    assert main(['suite', 'report', str(held)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith('uncertain-rl: error: ') and 'nope' in err, err
