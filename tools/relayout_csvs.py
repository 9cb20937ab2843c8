"""Move a suite store's CSV logs to where `store.csv_path` puts them now, and point the records at them.

`python tools/relayout_csvs.py STORE [--dry-run]`. The bsuite folder of a sweep was once keyed by the configuration
hash, so an agent whose configuration adapts to each environment's declared return range (PE-DQN on cartpole_noise) had
its five noise scales in five folders, where bsuite's analysis scores the five from one. It is keyed by the arm now, and
by the suite's code too (so that runs computed again after a change of suite code write beside the old logs, not over
them); this moves the files of a store written before either change. Each file is copied to its new path before the
record is updated, and the old file removed only after the update is committed; a second run finds nothing to move.
"""

import argparse
import shutil
import sys
from pathlib import Path

from uncertain_rl.suites import store


def old_csv_paths(record: dict) -> set:
    """Where `csv_path` put a record's log before: the sweep folder keyed by the configuration hash instead of the arm,
    or by the arm without the suite's code (`suite_code`, in the key since it exists)."""
    now = store.csv_path(record)  # bsuite/<agent>-<sweep>/seed_<s>/<file> or logs/<agent>-<sweep>/seed_<s>/<file>
    computing = (record['code'], record['jax'], record['jaxlib'])
    sweeps = [
        store.digest(record['design'], record['config_hash'], *computing),
        store.digest(record['design'], record['arm'], *computing),
    ]
    return {now.replace(now.split('/')[1], f"{record['agent']}-{sweep[:10]}", 1) for sweep in sweeps}


def moves(out: Path) -> list:
    """(design, arm, key, old path, new path) of every record whose CSV lies where the old layout put it. A record
    copied into another design shares the CSV of the record it was copied from: it follows that file."""
    con = store.read_store(out)
    try:
        cursor = con.execute('SELECT * FROM records WHERE csv IS NOT NULL')
        names = [d[0] for d in cursor.description]
        records = [dict(zip(names, row)) for row in cursor.fetchall()]
    finally:
        con.close()
    new_path = {r['csv']: store.csv_path(r) for r in records if r['csv'] in old_csv_paths(r)}
    return [(r['design'], r['arm'], r['key'], r['csv'], new_path[r['csv']]) for r in records if r['csv'] in new_path]


def relayout(out: Path, dry_run: bool = False) -> int:
    "Move every CSV of the store at `out` that lies where the old layout put it; returns how many records moved."
    todo = moves(out)
    files = {old: new for *_, old, new in todo}
    if len(set(files.values())) != len(files):
        raise ValueError(f"{out}: two records would share one CSV path; nothing moved")
    if dry_run or not todo:
        return len(todo)
    for old, new in files.items():
        (out / new).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / old, out / new)
    con = store.open_store(out)
    try:
        with con:
            con.executemany(
                'UPDATE records SET csv = ? WHERE key = ? AND design = ? AND arm = ?',
                [(new, key, design, arm) for design, arm, key, old, new in todo],
            )
        con.execute('PRAGMA journal_mode=DELETE')  # one self-contained file, to commit (as `store.merge` leaves it)
    finally:
        con.close()
    for old in files:
        (out / old).unlink(missing_ok=True)
    for folder in sorted({(out / old).parent for old in files}, key=lambda p: -len(p.parts)):
        for d in (folder, folder.parent):  # seed_<s>, then its sweep folder, once empty
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
    return len(todo)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('store')
    parser.add_argument('--dry-run', action='store_true', help='count the files to move, move nothing')
    args = parser.parse_args(argv)
    out = Path(args.store)
    if not (out / store.STORE_FILE).exists():
        print(f'store: {str(out)!r} holds no {store.STORE_FILE}', file=sys.stderr)
        return 2
    n = relayout(out, args.dry_run)
    print(f"{n} CSV logs {'to move' if args.dry_run else 'moved'}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
