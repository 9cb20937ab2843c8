"""bsuite's own analysis as the oracle for a suite's scores, in its own venv.

bsuite 0.3.6's analysis needs pandas < 2, and this package needs pandas >= 2, so the oracle lives in a venv of its own
(`benchmarks/bsuite_oracle/requirements.txt`, created on first use: it needs the package index once). For every
sweep of the store in DIR (one agent, design, configuration, code and seed: a directory under `bsuite/`; the runs of
bsuite's sweep only, since bsuite's loader reads bsuite ids) and every suite it ran, bsuite's loader and analysis score
the CSV logs in the oracle venv, and the suite's own `summary` (`uncertain_rl.suites`) scores the store's records; the
two must be equal. A sweep with a record that was merged without its log (`suite merge --missing-logs keep`) cannot
be scored by bsuite: it is listed and counted, not compared.

    python benchmarks/bsuite_oracle.py DIR [--venv PATH]     # exit 1 if any score differs
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

from uncertain_rl.suites.core import suites
from uncertain_rl.suites.store import csv_path, load_records

HERE = Path(__file__).resolve().parent / 'bsuite_oracle'


def oracle_python(venv: Path) -> Path:
    "The oracle venv's python, creating the venv from the pinned requirements if it is not there."
    python = venv / 'bin' / 'python'
    if not python.exists():
        subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
        subprocess.run([str(python), '-m', 'pip', 'install', '-q', '-r', str(HERE / 'requirements.txt')], check=True)
    return python


def sweep_dir(out: Path, record: dict) -> str:
    "The directory of a record's bsuite sweep (one agent, design, configuration, code and seed)."
    return str(out / Path(record['csv']).parent)


def sweep_records(out: Path) -> list:
    "The records of runs of bsuite's sweep (with a bsuite index), whose logs bsuite's loader can read."
    return [r for r in load_records(out) if r['setting_index'] is not None]


def our_scores(out: Path) -> dict:
    "{sweep directory: {suite: the store's score of that seed's sweep}}."
    sweeps = {}  # keyed as bsuite reads them: a folder, whatever configurations its runs had (PE-DQN's per scale)
    for r in sweep_records(out):
        folder = sweep_dir(out, r) if r['csv'] is not None else str(out / Path(csv_path(r)).parent)
        sweeps.setdefault((folder, r['seed'], r['suite']), []).append(r)
    scores = {}
    for (folder, seed, name), rs in sweeps.items():
        if any(r['csv'] is None for r in rs):
            continue  # a record kept without its log: see `unlogged`
        scores.setdefault(folder, {})[name] = suites()[name].summary(rs, [seed])['seed_scores'][0]
    return scores


def unlogged(out) -> list:
    "[(design, arm, suite, seed)] of the sweeps that bsuite cannot score: some record was merged without its CSV log."
    return sorted(
        {(r['design'], r['arm'], r['suite'], r['seed']) for r in sweep_records(Path(out)) if r['csv'] is None}
    )


def compare(out, venv) -> list:
    "[(sweep directory, suite, ours, bsuite's)] for every sweep of the store in `out`."
    ours = our_scores(Path(out))
    run = subprocess.run(
        [str(oracle_python(Path(venv))), str(HERE / 'score.py'), *sorted(ours)],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(run.stdout)
    return [
        (folder, name, score, theirs[folder].get(name))
        for folder in sorted(ours)
        for name, score in ours[folder].items()
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('out', metavar='DIR', help='a directory written by `uncertain-rl suite run`')
    parser.add_argument(
        '--venv',
        default=str(Path(__file__).resolve().parent.parent / '.venv-bsuite'),
        help='where the oracle venv is (created if missing)',
    )
    args = parser.parse_args(argv)
    rows = compare(args.out, args.venv)
    bad = [r for r in rows if r[3] is None or abs(r[2] - r[3]) > 1e-12]
    for folder, name, ours, theirs in rows:
        print(
            f"{'DIFF' if (folder, name, ours, theirs) in bad else 'ok  '} {name:20s} ours {ours:.6f} bsuite's {theirs} "
            f"{folder}"
        )
    print(f'{len(rows) - len(bad)} of {len(rows)} sweep scores equal to bsuite 0.3.6 analysis')
    skipped = unlogged(args.out)
    for design, arm, name, seed in skipped:
        print(f"no log {name:20s} {design} {arm} seed {seed}")
    if skipped:
        print(f'{len(skipped)} sweeps not checked: some of their records were merged without their CSV logs')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
