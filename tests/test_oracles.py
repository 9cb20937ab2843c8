"""The authors' code's committed results (`benchmarks/results/oracles/`) are what their committed logs give: the
summary the Results page reads is recomputed here from the oracle's CSV logs by the same script, and the Table 1
statistic of that script is checked against a hand-worked log."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORACLES = ROOT / 'benchmarks' / 'results' / 'oracles'
TABLE1 = ROOT / 'benchmarks' / 'oracles' / 'iv_rl' / 'table1.py'


def test_the_committed_iv_rl_summary_is_what_its_logs_give(tmp_path):
    committed = json.loads((ORACLES / 'iv_dqn_cartpole_as_run.json').read_text())
    note = committed['summary'].split(': ')[0]
    subprocess.run(
        [
            sys.executable,
            str(TABLE1),
            str(ORACLES / 'iv_rl' / 'as_run_noise_0.1'),
            '--finished-only',
            '--summary-out',
            str(tmp_path / 's.json'),
            '--note',
            note,
        ],
        check=True,
        capture_output=True,
    )
    assert json.loads((tmp_path / 's.json').read_text()) == committed


def test_table1_counts_the_first_episode_whose_running_mean_reaches_750(tmp_path):
    "A hand-worked log: returns 500, 1000, 1000, ... reach a running mean of 750 at episode 2 (mean of 500 and 1000)."
    folder = tmp_path / 'seed_0' / 'cartpole_noise' / 'X_bs_64_mask_1.0_mebs1.0_lossatt_1.0'
    folder.mkdir(parents=True)
    rows = ['steps,episode,total_return,episode_len,episode_return']
    total = 0
    for e, r in enumerate([500, 1000, 1000, 200], 1):
        total += r
        rows.append(f'{e * 1000},{e},{total},1000,{r}')
    (folder / 'bsuite_id_-_cartpole_noise-0.csv').write_text('\n'.join(rows) + '\n')
    (folder / 'run.json').write_text('{}')
    subprocess.run(
        [sys.executable, str(TABLE1), str(tmp_path), '--finished-only', '--summary-out', str(tmp_path / 's.json')],
        check=True,
        capture_output=True,
    )
    group = next(iter(json.loads((tmp_path / 's.json').read_text())['groups'].values()))
    assert group['solved'] == 1 and group['percentiles'] == ['2', '2', '2']
