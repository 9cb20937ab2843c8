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
        if len(chunks) == 3: raise KeyboardInterrupt
        return False
    exp = Experiment('boot_dqn', 'deep_sea', episodes=100, size=5, seeds=2, overrides=SMALL, num_chunks=10,
                     eval_every=0, stop_when=press_ctrl_c)
    with pytest.raises(RunInterrupted) as caught:
        run(exp, out=tmp_path)
    stored = load_run(tmp_path)
    assert stored.status == 'interrupted' and stored.summary['episodes'] == [30, 30] == chunks[-1].tolist()
    assert stored.episodes().groupby('seed').size().tolist() == [30, 30]
    assert caught.value.result.episodes.tolist() == [30, 30] and caught.value.signum == signal.SIGINT
    assert [r['episodes'] for r in stored.summary['results']] == [30, 30]


def test_sigterm_to_the_command_keeps_what_it_trained(tmp_path):
    "`kill PID` (SIGTERM) during `uncertain-rl train`: exit code 143, and the run directory holds what was trained."
    out = tmp_path / 'run'
    proc = subprocess.Popen([sys.executable, '-m', 'uncertain_rl', 'train', '--size', '5', '--episodes', '20000',
                             '--seeds', '2', '--set', 'num_ensemble=2', '--set', 'hidden_sizes=(8,)', '--eval-every', '0',
                             '--snapshots', '0', '--out', str(out), '--no-progress'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):                                      # until two chunks are on disk
            time.sleep(.2)
            if (out / 'episodes.csv').exists() and len(pd.read_csv(out / 'episodes.csv')) >= 2 * 2 * 400: break
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None: proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert 'interrupted' in err and str(out) in err and len(err.strip().splitlines()) == 1, err
    summary = json.loads((out / 'summary.json').read_text())
    df = pd.read_csv(out / 'episodes.csv')
    assert summary['status'] == 'interrupted' and 0 < min(summary['episodes']) < 20000
    assert df.groupby('seed').size().tolist() == summary['episodes']
    assert [r['episodes'] for r in summary['results']] == summary['episodes']
