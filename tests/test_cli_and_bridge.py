"""The command line (as a user runs it, through the installed console script) and the bsuite bridge."""

import json
import os
import shutil
import stat
import subprocess

import jax
import numpy as np
import pandas as pd
import pytest

from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.agents.dqn import DQNConfig, make_dqn
from conftest import cli
from uncertain_rl.app.cli import main
from uncertain_rl.envs.bsuite import load_bsuite, run_dm_env


@pytest.mark.long
def test_train_writes_the_run_directory(tmp_path):
    """The console script as a user runs it, under a umask that lets the group read: every result file gets the mode
    a new file gets (0640 here), not the temporary file's 0600."""
    out = tmp_path / 'run'
    r = subprocess.run(
        [
            'sh',
            '-c',
            'umask 027 && exec uncertain-rl "$@"',
            'sh',
            'train',
            '--agent',
            'boot_dqn',
            '--env',
            'deep_sea',
            '--size',
            '5',
            '--episodes',
            '40',
            '--seeds',
            '2',
            '--out',
            str(out),
            '--no-progress',
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert 'solved' in r.stdout and 'compile' in r.stdout
    df = pd.read_csv(out / 'episodes.csv')
    assert {'seed', 'episode', 'episode_return', 'episode_len', 'total_bad_episodes', 'loss'} <= set(df.columns)
    assert len(df) == 80 and (df.episode_len == 5).all()
    summary = json.loads((out / 'summary.json').read_text())
    assert [row['seed'] for row in summary['results']] == [0, 1]
    assert (out / 'learning_curve.png').stat().st_size > 1000
    assert not list(out.glob('*.tmp*'))
    for name in ('episodes.csv', 'evaluations.csv', 'summary.json', 'learning_curve.png'):
        assert stat.S_IMODE(os.stat(out / name).st_mode) == 0o640, name


@pytest.mark.long
def test_never_is_missing_not_episode_zero(tmp_path, capsys):
    """DQN on Deep Sea 10 for 20 episodes never finds the treasure: `null` in summary.json, `never` in the table."""
    assert (
        main(
            [
                'train',
                '--agent',
                'dqn',
                '--size',
                '10',
                '--episodes',
                '20',
                '--seeds',
                '2',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / 'summary.json').read_text())['results']
    assert all(r['first_treasure'] is None and r['solved_at'] is None for r in rows), rows
    table = capsys.readouterr().out.splitlines()
    header = table[0].split()
    assert all(line.split()[header.index('treasure')] == 'never' for line in table[1:3])


def test_a_step_budget_logs_every_episode(tmp_path):
    """`--steps` with episodes of varying length (CartPole): exactly that many steps, every episode that ends within
    them logged."""
    assert (
        main(
            [
                'train',
                '--agent',
                'dqn',
                '--env',
                'cartpole',
                '--steps',
                '3000',
                '--seeds',
                '1',
                '--set',
                'hidden_sizes=(16,)',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    df = pd.read_csv(tmp_path / 'episodes.csv')
    summary = json.loads((tmp_path / 'summary.json').read_text())
    assert len(df) == summary['results'][0]['episodes'] > 5
    assert 3000 - 500 < df.episode_len.sum() <= 3000


def test_an_episode_budget_is_exact(tmp_path):
    """`--episodes 60` on CartPole, whose episodes vary in length, trains exactly 60 episodes in every seed (before,
    it was a step budget of 60 x 500 steps, which ran 88 and 114 episodes)."""
    assert (
        main(
            [
                'train',
                '--agent',
                'dqn',
                '--env',
                'cartpole',
                '--episodes',
                '60',
                '--seeds',
                '2',
                '--set',
                'hidden_sizes=(16,)',
                '--eval-every',
                '0',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    df = pd.read_csv(tmp_path / 'episodes.csv')
    assert df.groupby('seed').size().tolist() == [60, 60]
    assert json.loads((tmp_path / 'summary.json').read_text())['episodes'] == [60, 60]
    assert df.episode_len.min() < df.episode_len.max()  # the lengths do vary


@pytest.mark.parametrize(
    'args, word',
    [
        (['--agent', 'ppo'], 'agent'),
        (['--env', 'atari'], 'env'),
        (['--size', '0'], 'size'),
        (['--episodes', '0'], 'episodes'),
        (['--episodes', '-5'], 'episodes'),
        (['--env', 'bsuite:nope/1'], 'bsuite'),
        (['--size', 'ten'], 'size'),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, args, word):
    r = cli('train', *args, '--out', str(tmp_path / 'x'))
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and word in r.stderr and 'Traceback' not in r.stderr


@pytest.mark.long
def test_suite_merge_of_a_store_without_its_logs(tmp_path):
    "A store whose CSV logs did not come back: refused in one line (exit 2) unless --missing-logs keep is given."
    from uncertain_rl.suites import store

    src = tmp_path / 'src'
    assert store.run(['dqn'], 'deep_sea', 'quick', src, progress=False)['trained'] == 4
    shutil.rmtree(src / 'bsuite')
    shutil.rmtree(src / 'logs')
    for extra, word in (([], 'lacks the CSV log'), (['--missing-logs', 'drop'], 'missing_logs')):
        r = cli('suite', 'merge', str(tmp_path / 'dst'), str(src), *extra)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and word in r.stderr, r.stderr
    r = cli('suite', 'merge', str(tmp_path / 'dst'), str(src), '--missing-logs', 'keep')
    assert r.returncode == 0 and '4 records added' in r.stdout, r.stderr
    assert [rec['csv'] for rec in store.load_records(tmp_path / 'dst')] == [None] * 4


def test_unwritable_out(tmp_path):
    (tmp_path / 'file').write_text('')
    r = cli('train', '--out', str(tmp_path / 'file' / 'sub'))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and 'writable' in r.stderr


@pytest.mark.long
def test_cli_through_bsuite_bridge(tmp_path):
    r = cli(
        'train',
        '--agent',
        'dqn',
        '--env',
        'bsuite-python:deep_sea/0',
        '--episodes',
        '3',
        '--seeds',
        '1',
        '--out',
        str(tmp_path),
        '--no-progress',
    )
    assert r.returncode == 0, r.stderr
    assert list((tmp_path / 'bsuite' / 'seed_0').glob('*.csv'))


@pytest.mark.long
def test_cli_trains_a_compiled_bsuite_setting(tmp_path):
    "`bsuite:ID` is compiled: no bsuite logger, and the per-episode CSV carries bsuite's counters (Catch's regret)."
    r = cli(
        'train', '--agent', 'dqn', '--env', 'bsuite:catch/3', '--episodes', '4', '--seeds', '2', '--out', str(tmp_path)
    )
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / 'bsuite').exists()
    episodes = pd.read_csv(tmp_path / 'episodes.csv')
    assert len(episodes) == 8 and (episodes['episode_len'] == 9).all()  # bsuite's column names
    for _, run in episodes.groupby('seed'):  # Catch pays +1 or -1 once: the regret counts 2 per miss, over the run
        np.testing.assert_array_equal(run['total_regret'], np.cumsum(1.0 - run['episode_return']))


def test_cli_says_in_one_line_how_to_fetch_mnist(tmp_path, monkeypatch, capsys):
    "Without the digits in the cache, `bsuite:mnist/ID` is refused before anything is written, never downloaded."
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'empty'))
    args = ['train', '--agent', 'dqn', '--env', 'bsuite:mnist/0', '--episodes', '2', '--out', str(tmp_path / 'run')]
    assert main([*args, '--no-progress']) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'fetch_mnist()' in err[0], err
    assert not (tmp_path / 'run').exists() and not (tmp_path / 'empty').exists()


@pytest.mark.parametrize('bsuite_id', ['deep_sea/0', 'cartpole/0'])
@pytest.mark.parametrize(
    'make, config',
    [(make_boot_dqn, BootDQNConfig(num_ensemble=4, min_replay_size=16, batch_size=16)), (make_dqn, DQNConfig())],
)
@pytest.mark.long
def test_agents_run_through_the_bridge(tmp_path, bsuite_id, make, config):
    env, spec = load_bsuite(bsuite_id, str(tmp_path))
    agent = make(config, spec)
    state, logs = run_dm_env(env, agent, jax.random.PRNGKey(0), num_episodes=3)
    assert len(logs['episode_return']) == 3 and np.isfinite(logs['loss']).all()
    assert int(state.env_steps) == logs['episode_length'].sum()
    csv = list(tmp_path.glob('*.csv'))
    assert csv and len(pd.read_csv(csv[0])) >= 1  # bsuite's own logger wrote its CSV


@pytest.fixture(scope='module')
def quick_store(tmp_path_factory):
    """A store of dqn's quick profile (four records with their CSV logs), trained once for the tests that tamper
    with copies."""
    from uncertain_rl.suites import store

    src = tmp_path_factory.mktemp('quick') / 'store'
    store.run(['dqn'], 'deep_sea', 'quick', src, progress=False, devices=1)
    return src


def crafted_store(tmp_path, source, csv: str):
    "A copy of the store `source` whose records' `csv` column is rewritten to `csv`."
    import sqlite3

    src = tmp_path / 'crafted'
    shutil.copytree(source, src)
    con = sqlite3.connect(src / 'results.sqlite')
    with con:
        con.execute('UPDATE records SET csv = ?', (csv,))
    con.close()
    return src


@pytest.mark.parametrize('csv', ['../../escaped.csv', '/tmp/absolute.csv', 'logs/../../../escaped.csv'])
@pytest.mark.long
def test_suite_merge_refuses_a_path_outside_the_store(tmp_path, quick_store, csv):
    """A crafted record's `csv` cannot write outside --out (nor read outside the source): one line, exit 2, nothing
    written."""
    src = crafted_store(tmp_path, quick_store, csv)
    r = cli('suite', 'merge', str(tmp_path / 'dst'), str(src))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and 'csv' in r.stderr, r.stderr
    assert not (tmp_path / 'escaped.csv').exists() and not (tmp_path / 'dst').exists()


@pytest.mark.long  # its fixture, a trained quick store, is the long merge tests' above: one run of it for them all
def test_suite_merge_refuses_a_symlinked_log(tmp_path, quick_store):
    "A source whose CSV log is a symbolic link (to /etc/passwd, say) is refused: its target is never copied."
    from uncertain_rl.suites import store

    src = tmp_path / 'src'
    shutil.copytree(quick_store, src)
    log = src / store.load_records(src)[0]['csv']
    log.unlink()
    log.symlink_to('/etc/passwd')
    r = cli('suite', 'merge', str(tmp_path / 'dst'), str(src))
    assert r.returncode == 2 and 'symbolic link' in r.stderr, r.stderr
    assert not (tmp_path / 'dst').exists()


@pytest.mark.parametrize('content', [b'', b'SQLite format 3\x00' + b'\x00' * 50, b'not a database at all' * 100])
@pytest.mark.long
def test_a_corrupt_store_is_named_in_one_line(tmp_path, content):
    "A truncated or foreign results.sqlite: merge, report and run answer in one line naming the file, exit 2."
    import sqlite3

    bad = tmp_path / 'bad'
    bad.mkdir()
    (bad / 'results.sqlite').write_bytes(content)
    if not content:  # an empty file is a valid empty database: a foreign table
        con = sqlite3.connect(bad / 'results.sqlite')
        con.execute('CREATE TABLE records (x)')
        con.close()
    for args in (
        ('suite', 'merge', str(tmp_path / 'dst'), str(bad)),
        ('suite', 'report', str(bad)),
        ('suite', 'run', '--agents', 'dqn', '--out', str(bad), '--no-progress'),
    ):
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert 'results.sqlite' in r.stderr and 'Traceback' not in r.stderr, (args, r.stderr)
    assert not (tmp_path / 'dst').exists()


@pytest.mark.long
def test_a_run_too_large_for_memory_is_refused_before_anything_is_written(tmp_path):
    """`--size 1000` (JAX out of memory after 20 s before) and `--size 1000000` (numpy's MemoryError): one line,
    exit 2, no --out."""
    for size, words in (('1000', 'GiB per device'), ('1000000', 'do not fit')):
        out = tmp_path / f'run{size}'
        r = cli('train', '--size', size, '--episodes', '10', '--out', str(out))
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr
        assert not out.exists()


@pytest.mark.long
def test_devices_and_ids_are_checked_before_the_run_directory_exists(tmp_path):
    """`--devices 2` works on a machine with two cores (the CPU devices are set before they are counted), and a bad
    device count, bsuite id or grid leaves no run directory behind (no summary stuck at 'running')."""
    if (os.cpu_count() or 1) >= 2:
        r = cli(
            'train',
            '--devices',
            '2',
            '--size',
            '4',
            '--episodes',
            '4',
            '--seeds',
            '2',
            '--snapshots',
            '0',
            '--no-progress',
            '--out',
            str(tmp_path / 'two'),
        )
        assert r.returncode == 0, r.stderr
        assert json.loads((tmp_path / 'two' / 'summary.json').read_text())['layout']['devices'] == 2
    for args, words in ((['--devices', '99'], '--devices'), (['--env', 'bsuite:nope/0'], 'bsuite id')):
        out = tmp_path / 'never'
        r = cli('train', *args, '--episodes', '2', '--out', str(out))
        assert r.returncode == 2 and words in r.stderr and not out.exists(), r.stderr
