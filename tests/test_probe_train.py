"""`uncertain-rl train` against a hostile or clumsy user (issue 59): it never destroys what it did not write, refuses
in one line (exit 2) what cannot run before it trains or writes anything, marks a run that fails as `failed`, and takes
no option it would ignore. Every case is a small run (Deep Sea 6, a few episodes); most call the command line in
the test's process (`uncertain_rl.app.cli.main`), as the console script does."""

import importlib.util
import json
import os
import subprocess
import sys
from unittest import mock

import pytest

from conftest import refused
from uncertain_rl.app.cli import main
from uncertain_rl.rundir import LOCK_FILE, load_run

SMALL = ['--size', '6', '--episodes', '5', '--seeds', '1', '--no-progress']


def train(*extra) -> list:
    "The arguments of a small `train` with `extra`, as the command line gets them (text)."
    return [str(a) for a in ['train', *SMALL, *extra]]


def test_out_holding_files_of_others_is_refused_and_left_intact(tmp_path, capsys):
    """The data loss: `--out d` on a directory with no `summary.json` overwrote its files and deleted `d/checkpoint`
    (`mkdir -p d/checkpoint; echo x > d/checkpoint/model.pt; uncertain-rl train ... --out d` exited 0, file gone)."""
    d = tmp_path / 'd'
    (d / 'checkpoint').mkdir(parents=True)
    (d / 'checkpoint' / 'model.pt').write_text('x')
    (d / 'episodes.csv').write_text('mine')
    err = refused(capsys, *train('--out', d))
    assert 'is not empty and holds no run of ours' in err
    assert (d / 'checkpoint' / 'model.pt').read_text() == 'x' and (d / 'episodes.csv').read_text() == 'mine'
    assert sorted(p.name for p in d.iterdir()) == ['checkpoint', 'episodes.csv']  # nothing added either


def test_library_run_refuses_a_directory_of_others_too(tmp_path):
    from uncertain_rl.experiments import Experiment, run

    (tmp_path / 'notes.txt').write_text('mine')
    with pytest.raises(ValueError, match='is not empty and holds no run of ours'):
        run(Experiment(episodes=5, size=6), out=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ['notes.txt']


@pytest.mark.long
def test_an_empty_directory_is_a_new_run_and_its_lock_file_goes_when_complete(tmp_path, capsys):
    assert main(train('--out', tmp_path, '--snapshots', '0', '--eval-every', '0')) == 0, capsys.readouterr().err
    assert load_run(tmp_path).status == 'complete' and not (tmp_path / LOCK_FILE).exists()
    err = refused(capsys, *train('--out', tmp_path))
    assert 'holds an earlier run' in err and '--resume' in err


@pytest.mark.parametrize(
    'out, why',
    [
        ('/proc/uncertain_rl_probe/run', 'cannot be written'),
        ('/sys/uncertain_rl_probe', 'cannot be written'),
        ('TMP/' + 'x' * 300, 'File name too long'),
        ('TMP/file', 'is a file, not a directory'),
        ('TMP/file/run', 'is a file, not a directory'),
    ],
)
def test_out_that_cannot_be_written_is_refused_before_training(tmp_path, capsys, out, why):
    "`--out` under /proc or /sys, 300 characters long, a file: one line, exit 2, before JAX starts training."
    (tmp_path / 'file').write_text('')
    out = out.replace('TMP', str(tmp_path))
    with mock.patch('uncertain_rl.experiments.run', side_effect=AssertionError('it trained')):
        assert why in refused(capsys, *train('--out', out))


@pytest.mark.skipif(os.geteuid() == 0, reason='root writes past permission bits (/proc and /sys stand in above)')
def test_a_read_only_directory_is_refused(tmp_path, capsys):
    read_only = tmp_path / 'ro'
    read_only.mkdir()
    read_only.chmod(0o555)
    assert 'cannot be written' in refused(capsys, *train('--out', read_only / 'run'))


@pytest.mark.parametrize(
    'option, why',
    [
        (['--seed', str(10**20)], 'first_seed must be an integer in [0, 4294967295]'),
        (['--seed', str(2**32)], 'first_seed must be an integer in [0, 4294967295]'),
        (['--eval-episodes', str(10**9)], 'evaluation episodes and replay batches'),
        (['--set', f'replay_capacity={10**11}'], 'replay_capacity must be at most 2,147,483,647'),
        (['--set', f'replay_capacity={10**9}'], 'GiB per device'),
        (['--set', f'batch_size={10**12}'], 'batch_size must be at most 2,147,483,647'),
        (['--set', f'batch_size={10**9}'], 'evaluation episodes and replay batches'),
    ],
)
def test_sizes_that_cannot_run_are_refused_with_the_estimate(tmp_path, capsys, option, why):
    "Before: an OverflowError, a JAX TypeError, or an out-of-memory error after compiling and starting the run."
    assert why in refused(capsys, *train('--out', tmp_path / 'run', *option))
    assert not (tmp_path / 'run').exists()  # refused before the directory was made


@pytest.mark.long
def test_a_hundred_million_seeds_are_refused_at_once(tmp_path):
    """`--seeds 100000000` printed its memory estimate only after building a hundred million labels (it had not
    exited two minutes later); the count is checked against memory before any per-seed list is made."""
    done = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', *train('--seeds', str(10**8), '--out', tmp_path / 'run')],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and 'GiB per device' in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.long
def test_wandb_without_a_login_is_refused_and_leaves_the_directory_reusable(tmp_path):
    """`--log wandb` with no W&B login ended in wandb's traceback, with a `running` summary left behind. (Its own
    process: wandb changes the process's standard streams.)"""
    pytest.importorskip('wandb')
    env = {k: v for k, v in os.environ.items() if not k.startswith('WANDB_')}
    env.update(HOME=str(tmp_path / 'home'), WANDB_CONFIG_DIR=str(tmp_path / 'wandb-config'))  # no ~/.netrc, no key
    out = tmp_path / 'run'
    done = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', *train('--out', out, '--log', 'wandb')],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 2 and "log='wandb': the tracker did not start" in done.stderr, done.stderr
    assert done.stderr.startswith('uncertain-rl: error: ') and 'Traceback' not in done.stderr, done.stderr
    assert [p.name for p in out.iterdir()] in ([], [LOCK_FILE])  # nothing of the run: the same command can run again


@pytest.mark.long
def test_a_failure_after_the_directory_exists_marks_the_run_failed(tmp_path, capsys):
    "A run that fails after writing its summary left it `running`, which blocked retrying the same `--out`."
    out = tmp_path / 'run'
    with mock.patch('uncertain_rl.experiments._run_jax', side_effect=RuntimeError('the disk went away')):
        with pytest.raises(RuntimeError):
            main(train('--out', out))
    stored = load_run(out)
    assert stored.status == 'failed' and stored.summary['error'] == 'RuntimeError: the disk went away'
    assert main(['train', '--resume', str(out), '--no-progress']) == 0, capsys.readouterr().err  # the retry
    assert load_run(out).status == 'complete'


@pytest.mark.parametrize('again', ['--from', '--resume'])
def test_options_beside_from_or_resume_are_refused_not_ignored(tmp_path, capsys, again):
    "`--from DIR --seeds 1 --agent tdu` ran DIR's experiment and ignored both options."
    first = tmp_path / 'first'
    (first).mkdir()
    (first / 'summary.json').write_text(json.dumps({'status': 'interrupted', 'spec': {'episodes': 5}}))
    extra = ['--out', tmp_path / 'second'] if again == '--from' else []
    err = refused(capsys, 'train', again, first, '--seeds', '1', '--agent', 'tdu', *extra)
    assert f'{again} takes every option from' in err and '--agent, --seeds cannot be given with it' in err


def test_an_empty_shard_is_refused_not_the_whole_plan(tmp_path, capsys):
    "`suite run --shard ''` ran every call of the plan."
    err = refused(capsys, 'suite', 'run', '--agents', 'boot_dqn', '--shard', '', '--out', tmp_path, '--no-progress')
    assert "shard must be K/N" in err and not (tmp_path / 'results.sqlite').exists()


@pytest.mark.parametrize(
    'argv',
    [
        ['run', '--agents', 'boot_dqn', '--no-progress'],
        ['claims', '--claims', 'tdu_stochastic', '--no-progress'],
        ['submit', 'run', '--agents', 'boot_dqn', '--executor', 'local', '--no-progress'],
        ['plan', 'claims', '--claims', 'tdu_stochastic'],
    ],
)
def test_runs_per_call_below_one_is_refused(tmp_path, capsys, argv):
    "`--runs-per-call 0` is refused in one line before anything is written."
    err = refused(capsys, 'suite', *argv, '--runs-per-call', '0', '--out', tmp_path / 'suite')
    assert '--runs-per-call must be an integer >= 1, got 0' in err and not (tmp_path / 'suite').exists()


@pytest.mark.parametrize('command', ['run', 'claims'])
def test_runs_per_call_reaches_the_runner(tmp_path, command):
    "`--runs-per-call 2` is what `store.run` or `store.run_claims` is given (the pieces themselves: notebook 88)."
    counts = dict(trained=0, stored=0, copied=0, in_flight=0, unsupported=0)
    which = ['--agents', 'boot_dqn'] if command == 'run' else ['--claims', 'tdu_stochastic']
    with mock.patch(
        f"uncertain_rl.suites.store.{'run' if command == 'run' else 'run_claims'}", return_value=counts
    ) as m:
        main(['suite', command, *which, '--runs-per-call', '2', '--out', str(tmp_path), '--no-progress'])
    assert m.call_args.kwargs['runs_per_call'] == 2


@pytest.mark.parametrize(
    'argv, why',
    [
        (['run', '--agents', 'boot_dqn', '--profile', 'nope', '--executor', 'local'], 'profile must be one of'),
        (['claims', '--claims', 'nope', '--executor', 'local'], 'claim must be one of'),
        (['run', '--agents', 'boot_dqn', '--executor', 'slurm'], 'needs SLURM'),
    ],
)
def test_submit_checks_before_it_submits(tmp_path, capsys, monkeypatch, argv, why):
    "`suite submit` with `--profile nope` submitted jobs that failed; without SLURM, submitit's traceback."
    if importlib.util.find_spec('submitit') is None:  # not imported here: its logger would keep this test's stderr
        pytest.skip('submitit (the cluster extra) is not installed')
    monkeypatch.setenv('PATH', str(tmp_path / 'bin'))  # no sbatch or srun here
    assert why in refused(capsys, 'suite', 'submit', *argv, '--out', tmp_path / 'suite')
    assert not (tmp_path / 'suite').exists()


@pytest.mark.long
def test_three_ctrl_c_leave_an_interrupted_run(tmp_path):
    """Ctrl-C three times in quick succession: the first interrupts, the others wait until what was trained is
    written down (they had cut the clean-up short: exit 134, status left `running`)."""
    out = tmp_path / 'run'
    proc = subprocess.Popen(
        [sys.executable, '-m', 'uncertain_rl', 'train', '--size', '6', '--episodes', '10000', '--seeds', '1']
        + ['--snapshots', '0', '--eval-every', '0', '--no-progress', '--out', str(out)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        import time

        for _ in range(3000):  # until a chunk is on disk: training has begun
            time.sleep(0.1)
            if (out / 'episodes.csv').exists() or proc.poll() is not None:
                break
        for _ in range(3):
            proc.send_signal(2)  # SIGINT
            time.sleep(0.02)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert 'Traceback' not in err and load_run(out).summary['status'] == 'interrupted', err


def test_three_ctrl_c_in_the_clean_up_are_ignored_until_it_is_done(tmp_path):
    """The same, deterministically: SIGINTs delivered while the interrupted run writes its summary (inside the
    clean-up) are ignored; the summary is written and the run reads `interrupted`."""
    import signal

    from uncertain_rl import rundir
    from uncertain_rl.experiments import Experiment, RunInterrupted, run

    real = rundir.write_summary

    def write_with_ctrl_c(out, summary):
        if summary.get('status') == 'interrupted':
            for _ in range(2):
                os.kill(os.getpid(), signal.SIGINT)  # the second and third Ctrl-C, in the middle of the clean-up
        return real(out, summary)

    def first_ctrl_c(logs):
        os.kill(os.getpid(), signal.SIGINT)
        return False

    exp = Experiment(episodes=50, size=6, num_chunks=10, eval_every=0, snapshots=0, stop_when=first_ctrl_c)
    # Python's own handler, as in a user's process (a pytest-xdist worker may start with SIGINT ignored)
    callers = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with mock.patch.object(rundir, 'write_summary', write_with_ctrl_c):
            with pytest.raises(RunInterrupted):
                run(exp, out=tmp_path / 'run')
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back for the caller
    finally:
        signal.signal(signal.SIGINT, callers)
    assert load_run(tmp_path / 'run').summary['status'] == 'interrupted'


def test_out_path_with_a_nul_byte_is_refused(capsys):
    assert 'is not a usable path' in refused(capsys, *train('--out', 'a\x00b'))


def test_from_a_missing_path_is_refused(tmp_path, capsys):
    assert 'is not a run directory' in refused(capsys, 'train', '--from', tmp_path / 'nothing')
