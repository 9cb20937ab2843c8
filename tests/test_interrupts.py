"""An interrupted run keeps what it trained. Ctrl-C (KeyboardInterrupt) in `experiments.run` and SIGTERM to the
command line both leave the episodes of every finished chunk in `episodes.csv` and a `summary.json` whose status is
`interrupted`, with the episode counts of those chunks; the command line says where, and exits 130 or 143."""

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from uncertain_rl.experiments import Experiment, RunInterrupted, run
from uncertain_rl.rundir import load_run

SMALL = dict(num_ensemble=2, hidden_sizes=(8,), min_replay_size=16, batch_size=16)


def test_ctrl_c_keeps_the_finished_chunks(tmp_path):
    "Ctrl-C arrives after the third chunk (raised from its callback): the episodes of those three chunks are on disk."
    chunks = []

    def press_ctrl_c(logs):
        chunks.append(np.isfinite(logs['episode_return']).sum(1))
        if len(chunks) == 3:
            raise KeyboardInterrupt
        return False

    exp = Experiment(
        'boot_dqn',
        'deep_sea',
        episodes=100,
        size=5,
        seeds=2,
        overrides=SMALL,
        num_chunks=10,
        eval_every=0,
        stop_when=press_ctrl_c,
    )
    with pytest.raises(RunInterrupted) as caught:
        run(exp, out=tmp_path)
    stored = load_run(tmp_path)
    assert stored.status == 'interrupted' and stored.summary['episodes'] == [30, 30] == chunks[-1].tolist()
    assert stored.episodes().groupby('seed').size().tolist() == [30, 30]
    assert caught.value.result.episodes.tolist() == [30, 30] and caught.value.signum == signal.SIGINT
    assert [r['episodes'] for r in stored.summary['results']] == [30, 30]
    from uncertain_rl.rundir import load_snapshots

    with pytest.raises(ValueError, match='this run is interrupted; finish it with uncertain-rl train --resume'):
        load_snapshots(tmp_path)  # the viewer says why, and what to do


def test_sigterm_to_the_command_keeps_what_it_trained(tmp_path):
    "`kill PID` (SIGTERM) during `uncertain-rl train`: exit code 143, and the run directory holds what was trained."
    out = tmp_path / 'run'
    proc = subprocess.Popen(
        [
            sys.executable,
            '-m',
            'uncertain_rl',
            'train',
            '--size',
            '5',
            '--episodes',
            '20000',
            '--seeds',
            '2',
            '--set',
            'num_ensemble=2',
            '--set',
            'hidden_sizes=(8,)',
            '--eval-every',
            '0',
            '--snapshots',
            '0',
            '--out',
            str(out),
            '--no-progress',
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # until two chunks are on disk
            time.sleep(0.2)
            if (out / 'episodes.csv').exists() and len(pd.read_csv(out / 'episodes.csv')) >= 2 * 2 * 400:
                break
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert 'interrupted' in err and str(out) in err and len(err.strip().splitlines()) == 1, err
    summary = json.loads((out / 'summary.json').read_text())
    df = pd.read_csv(out / 'episodes.csv')
    assert summary['status'] == 'interrupted' and 0 < min(summary['episodes']) < 20000
    assert df.groupby('seed').size().tolist() == summary['episodes']
    assert [r['episodes'] for r in summary['results']] == summary['episodes']


def train_command(out, *extra) -> list:
    return [
        sys.executable,
        '-m',
        'uncertain_rl',
        'train',
        '--size',
        '5',
        '--episodes',
        '3000',
        '--seeds',
        '2',
        '--set',
        'num_ensemble=2',
        '--set',
        'hidden_sizes=(8,)',
        '--snapshots',
        '0',
        '--out',
        str(out),
        '--no-progress',
        *extra,
    ]


@pytest.mark.long
def test_kill_9_then_resume_gives_the_uninterrupted_run(tmp_path):
    """`kill -9` (no handler runs) after a checkpoint; the summary reads back as interrupted, and
    `uncertain-rl train --resume DIR` finishes the run with the uninterrupted run's episodes.csv and evaluations."""
    killed, whole = tmp_path / 'killed', tmp_path / 'whole'
    proc = subprocess.Popen(
        train_command(killed, '--checkpoint-every', '2'), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for _ in range(1200):  # until the first checkpoint is complete
            time.sleep(0.1)
            saved = (
                [p for p in (killed / 'checkpoint').glob('*') if p.name.isdigit()]
                if (killed / 'checkpoint').is_dir()
                else []
            )
            if saved or proc.poll() is not None:
                break
        assert proc.poll() is None, 'the run ended before a checkpoint was seen'
        proc.kill()  # SIGKILL
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert json.loads((killed / 'summary.json').read_text())['status'] == 'running'  # as the dead process left it
    assert load_run(killed).status == 'interrupted'  # ... read back as interrupted
    resumed = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', 'train', '--resume', str(killed), '--no-progress'],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    done = subprocess.run(train_command(whole), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for name in ('episodes.csv', 'evaluations.csv'):
        assert (killed / name).read_text() == (whole / name).read_text(), name
    assert load_run(killed).status == 'complete' and not (killed / 'checkpoint').exists()
    again = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', 'train', '--resume', str(killed)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 2 and 'holds a complete run' in again.stderr


@pytest.mark.long
def test_from_a_run_directory_runs_it_again(tmp_path):
    "`train --from DIR --out NEW` re-runs DIR's experiment exactly: the same episodes.csv."
    first, second = tmp_path / 'first', tmp_path / 'second'
    cmd = [
        sys.executable,
        '-m',
        'uncertain_rl',
        'train',
        '--size',
        '4',
        '--episodes',
        '30',
        '--seeds',
        '2',
        '--set',
        'num_ensemble=2',
        '--snapshots',
        '0',
        '--no-progress',
    ]
    assert subprocess.run(cmd + ['--out', str(first)], capture_output=True, timeout=300).returncode == 0
    again = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', 'train', '--from', str(first), '--out', str(second), '--no-progress'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert (first / 'episodes.csv').read_text() == (second / 'episodes.csv').read_text()
    spec = json.loads((first / 'summary.json').read_text())['spec']
    (tmp_path / 'spec.json').write_text(json.dumps(spec))
    third = subprocess.run(
        [
            sys.executable,
            '-m',
            'uncertain_rl',
            'train',
            '--from',
            str(tmp_path / 'spec.json'),
            '--out',
            str(tmp_path / 'third'),
            '--no-progress',
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (
        third.returncode == 0
        and (tmp_path / 'third' / 'episodes.csv').read_text() == (first / 'episodes.csv').read_text()
    )
