"""Key the records of a results store written before records were keyed by the code that scores them.

`python tools/migrate_metrics_code.py STORE [STORE ...] [--dry-run]`. A record's key covers the suite's `metrics`
code too now (`store.metrics_fingerprint`, notebook `88_suites.store`), in a column `metrics_code` that older stores
lack. A record may only be given this checkout's metrics code if its metrics were computed by code that computes the
same: for each commit that wrote a record of the store (its `git_commit`), `tools/metrics_history.py` computes the
fingerprint of each suite's `metrics` on that commit's package, which must be one of `EQUIVALENT` below (or this
checkout's own). The tool checks itself: each record's stored key must be the key the old rule computes from its
columns, before it is replaced by the key `store.call_records` gives the same run now. Leases are dropped; a store
with a call in flight (a checkpoint) is refused.
"""

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from uncertain_rl.suites import store
from uncertain_rl.suites.core import suites

# The fingerprints (as `tools/metrics_history.py` prints them) of each suite's `metrics` over every commit from
# 7d1d044 (the first that could write a store of this layout) to 70b2f33 (the last before the key covered them): one
# value per suite over the whole range, a lambda calling the same `deep_sea_metrics` / `cartpole_metrics` with the same
# rule that today's named functions call (notebooks 86 and 87).
EQUIVALENT = {
    'deep_sea': {'67de41092e393c04'},
    'deep_sea_stochastic': {'94b3305682192a40'},
    'cartpole_noise': {'85e4f6d434bdcbe4'},
}


def old_key(r: dict) -> str:
    "A record's key by the rule before the metrics code entered it, from the record's own columns."
    return store.digest(
        r['agent'],
        r['config_hash'],
        r['suite'],
        json.loads(r['setting']),
        r['prng_seed'],
        r['budget'],
        bool(r['stop_early']),
        r['code'],
        r['jax'],
        r['jaxlib'],
    )


def new_key(r: dict, metrics_code: str) -> str:
    "The key `store.call_records` gives the same run now."
    return store.digest(
        r['agent'],
        r['config_hash'],
        r['suite'],
        json.loads(r['setting']),
        r['prng_seed'],
        r['budget'],
        bool(r['stop_early']),
        r['code'],
        r['jax'],
        r['jaxlib'],
        metrics_code,
    )


def commit_fingerprints(commits) -> dict:
    "{commit: {suite: metrics fingerprint}} for each commit (tools/metrics_history.py, one interpreter a commit)."
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import metrics_history

    return {c: metrics_history.fingerprints(c) for c in sorted(commits)}


def plan(rows: list, history: dict, current: dict, equivalent: dict = EQUIVALENT) -> list:
    """(design, arm, old key, new key, metrics code) of every record of `rows`; a `ValueError` for one whose key is
    not its columns' or whose metrics were computed by code not shown to compute what this checkout's does."""
    changes = []
    for r in rows:
        if r['key'] != old_key(r):
            raise ValueError(f"record {r['key']!r} ({r['design']}, {r['arm']}): its key is not its columns' key")
        then = (history.get(r['git_commit']) or {}).get(r['suite'])
        if then not in equivalent.get(r['suite'], set()) | {current[r['suite']]}:
            raise ValueError(
                f"record {r['key']!r} ({r['design']}, {r['arm']}) was scored at commit {r['git_commit']!r} by "
                f"metrics code {then!r}, not one shown to compute what {current[r['suite']]!r} does"
            )
        changes.append((r['design'], r['arm'], r['key'], new_key(r, current[r['suite']]), current[r['suite']]))
    return changes


def migrate(out, history=commit_fingerprints, dry_run: bool = False) -> int:
    "Give every record of the store in `out` its metrics code and key; returns how many records changed."
    out, path = Path(out), Path(out) / store.STORE_FILE
    if any(p.is_file() for p in (out / store.CHECKPOINTS_DIR).rglob('*')):
        raise ValueError(f"{str(out)!r} has a call in flight ({store.CHECKPOINTS_DIR}/): finish it first")
    con = sqlite3.connect(path, timeout=120)
    try:
        have = [row[1] for row in con.execute('PRAGMA table_info(records)')]
        if 'metrics_code' in have:
            return 0
        rows = [dict(zip(have, row)) for row in con.execute(f"SELECT {', '.join(have)} FROM records")]
        current = {name: store.metrics_fingerprint(s) for name, s in suites().items()}
        changes = plan(rows, history({r['git_commit'] for r in rows}), current)
        if dry_run:
            return len(changes)
        with con:
            con.execute('ALTER TABLE records ADD COLUMN metrics_code')
            con.executemany(
                'UPDATE records SET key = ?, metrics_code = ? WHERE design = ? AND arm = ? AND key = ?',
                [(new, code, design, arm, old) for design, arm, old, new, code in changes],
            )
            con.execute('DELETE FROM leases')
        con.execute('PRAGMA journal_mode=DELETE')  # one self-contained file, to copy or commit
    finally:
        con.close()
    return len(changes)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('stores', nargs='+')
    parser.add_argument('--dry-run', action='store_true')
    args = parser.parse_args(argv)
    try:
        for out in args.stores:
            print(f'{out}: {migrate(out, dry_run=args.dry_run)} records', '(dry run)' if args.dry_run else 'migrated')
    except ValueError as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
