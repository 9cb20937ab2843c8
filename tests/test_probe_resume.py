"""Resuming against a hostile or clumsy user (issue 59): a checkpoint belongs to one experiment; one process trains
in a run directory at a time; a damaged checkpoint, a state of another structure, Ctrl-C while a checkpoint is saved
and a resumed tracker are handled. Each case is a small interrupted run (Deep Sea 6, one seed, a small network)."""

import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from conftest import refused
from uncertain_rl import experiments
from uncertain_rl.app.cli import main
from uncertain_rl.experiments import CHECKPOINT_DIR, Experiment, RunInterrupted, run
from uncertain_rl.rundir import load_run

NET = dict(num_ensemble=2, hidden_sizes=(8,), min_replay_size=16, batch_size=16)
EXPERIMENT = Experiment(
    'boot_dqn',
    'deep_sea',
    episodes=60,
    size=6,
    seeds=1,
    overrides=NET,
    num_chunks=10,
    checkpoint_every=2,
    eval_every=0,
    snapshots=0,
)


def interrupted(out: Path, experiment=EXPERIMENT, after: int = 7) -> Path:
    "`experiment` run into `out` and interrupted (Ctrl-C) after chunk `after`: its checkpoint is the last even chunk's."
    calls, chunk = [], experiments._Progress.chunk

    def ctrl_c(self, logs, episodes):
        stop = chunk(self, logs, episodes)
        calls.append(1)
        if len(calls) == after:
            raise KeyboardInterrupt
        return stop

    with mock.patch.object(experiments._Progress, 'chunk', ctrl_c):
        with pytest.raises(RunInterrupted):
            run(experiment, out=out)
    assert load_run(out).status == 'interrupted' and (out / CHECKPOINT_DIR).is_dir()
    return out


def edit_summary(out: Path, edit) -> None:
    summary = json.loads((out / 'summary.json').read_text())
    edit(summary)
    (out / 'summary.json').write_text(json.dumps(summary))


@pytest.mark.long
def test_a_checkpoint_of_another_configuration_is_refused(tmp_path, capsys):
    """The summary's overrides edited (learning rate 0.5) after the interruption: `--resume` continued the old
    state silently and recorded the run complete under the new configuration."""
    out = interrupted(tmp_path / 'run')
    edit_summary(out, lambda s: s['spec']['overrides'].update(learning_rate=0.5))
    err = refused(capsys, 'train', '--resume', out, '--no-progress')
    assert "was saved by another experiment: its overrides.learning_rate was unset, this one's is 0.5" in err
    assert load_run(out).status == 'interrupted' and (out / CHECKPOINT_DIR).is_dir()  # left as it was


def test_a_resume_of_the_same_experiment_still_goes_on(tmp_path, capsys):
    out = interrupted(tmp_path / 'run')
    assert main(['train', '--resume', str(out), '--no-progress']) == 0, capsys.readouterr().err
    assert load_run(out).status == 'complete' and not (out / CHECKPOINT_DIR).exists()


def test_two_resumes_cannot_both_train(tmp_path, capsys):
    """A resume holds the run directory's lock from its first step: a second one, started before the first has
    written `running` (about 9 s of checks and compilation), is refused instead of training the same directory. The
    first is a process that holds an exclusive `flock` on the directory's lock file, as a resume at its first step
    does."""
    out = interrupted(tmp_path / 'run')
    first = subprocess.Popen(
        [
            sys.executable,
            '-c',
            f'import fcntl; f = open({str(out / ".lock")!r}, "a"); fcntl.flock(f, fcntl.LOCK_EX); '
            'print(1, flush=True); input()',
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first.stdout.readline()  # it holds the lock now
        assert 'is in use: another process is training in it' in refused(capsys, 'train', '--resume', out)
    finally:
        first.kill()
        first.wait()
    assert load_run(out).status == 'interrupted'


@pytest.mark.long
def test_a_damaged_checkpoint_is_one_line(tmp_path, capsys):
    "A checkpoint whose files were overwritten ended in orbax's traceback."
    out = interrupted(tmp_path / 'run')
    for f in (out / CHECKPOINT_DIR).rglob('*'):
        if f.is_file():
            f.write_bytes(b'\x00garbage')
    assert 'cannot be' in refused(capsys, 'train', '--resume', out, '--no-progress')
    assert load_run(out).status == 'interrupted'  # refused before anything was trained: as it was


@pytest.mark.long
def test_a_state_of_another_structure_is_one_line(tmp_path, capsys):
    """A checkpoint whose state has another structure than the run's (what an agent whose code changed meets) printed
    a 33-line tree. Made here from a checkpoint of an older version (no identity saved) and a wider network."""
    out = interrupted(tmp_path / 'run')
    (plan,) = (out / CHECKPOINT_DIR).glob('*/plan/metadata')
    saved = json.loads(plan.read_text())
    plan.write_text(json.dumps({k: v for k, v in saved.items() if k != 'identity'}))
    edit_summary(out, lambda s: s['spec']['overrides'].update(hidden_sizes=[16]))
    err = refused(capsys, 'train', '--resume', out, '--no-progress')
    assert 'holds a state of another structure (its state.agent_state' in err and 'was [[1, 2, 8]' in err


@pytest.mark.long
def test_ctrl_c_while_a_checkpoint_is_saved_keeps_it_whole(tmp_path):
    """SIGINT in the middle of a save ended in orbax's traceback with an `.orbax-checkpoint-tmp` folder left; the save
    now finishes first, then the run stops, and the resume gives the uninterrupted run."""
    import os
    import signal

    import orbax.checkpoint as ocp

    save, saves = ocp.CheckpointManager.save, []

    def save_with_ctrl_c(self, *args, **kwargs):
        saves.append(1)
        if len(saves) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives while the second checkpoint is saved
        return save(self, *args, **kwargs)

    out = tmp_path / 'run'
    with mock.patch.object(ocp.CheckpointManager, 'save', save_with_ctrl_c):
        with pytest.raises(RunInterrupted):
            run(EXPERIMENT, out=out)
    assert [p.name for p in (out / CHECKPOINT_DIR).iterdir()] == ['4']  # the second save, whole: no tmp folder
    assert load_run(out).status == 'interrupted'
    run(resume=out)
    whole = tmp_path / 'whole'
    run(EXPERIMENT, out=whole)
    assert (out / 'episodes.csv').read_text() == (whole / 'episodes.csv').read_text()


@pytest.mark.long
def test_a_resumed_tracker_does_not_log_an_episode_twice(tmp_path):
    """`--log tensorboard`, interrupted after a checkpoint and resumed: the episodes between the checkpoint and the
    interruption were logged again (TensorBoard showed two points for them)."""
    pytest.importorskip('tensorboardX')
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from dataclasses import replace

    out = interrupted(tmp_path / 'run', replace(EXPERIMENT, log='tensorboard'))
    run(resume=out)
    steps = []
    for events in (out / 'tensorboard').rglob('events.out.tfevents.*'):
        acc = EventAccumulator(str(events))
        acc.Reload()
        steps += [e.step for e in acc.Scalars('seed_0/episode_return')]
    assert sorted(steps) == list(range(1, 61))  # every episode once
