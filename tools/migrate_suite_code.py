"""Key the records of a results store written before records were keyed by their suite's code.

`python tools/migrate_suite_code.py STORE [STORE ...] [--dry-run]`. A record's key covers its suite's code too now
(`experiment`, `run_params` and `metrics`: `store.suite_fingerprint`, notebook `88_suites.store`), in a column
`suite_code` that older stores lack. A record may only be given this checkout's suite code if it was computed by code
that computes the same: for each commit that wrote a record of the store (its `git_commit`),
`tools/suite_code_history.py` computes the fingerprint of each suite's code on that commit's package, which must be one
of `EQUIVALENT` below (or this checkout's own). The tool checks itself: each record's stored key must be the key the
old rule computes from its columns, before it is replaced by the key `store.call_records` gives the same run now.
Leases are dropped; a store with a call in flight (a checkpoint) is refused.
"""

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from uncertain_rl.suites import store
from uncertain_rl.suites.core import suites

# The fingerprints (as `tools/suite_code_history.py` prints them) of each suite's code at every commit that could have
# written a record of the old layout, from 7d1d044 (the first of this store's layout) to 99c1d94 (the last before the
# key covered the suite's code):
# - Deep Sea's and stochastic Deep Sea's: one value each from 7d1d044 to 70b2f33; at 99c1d94 `metrics` became a named
#   function calling the same `deep_sea_metrics` with the same rule, its `experiment` still the closure over the rule
#   (a second value each). Their code today is the same: named functions calling the same functions with the same rules.
# - cartpole_noise's: one value before ecf230c and one from it to 70b2f33; ecf230c is `ruff format`, which changed the
#   lines around the `metrics` lambda (whitespace, `0.` -> `0.0`), not what it computes; at 99c1d94 it is today's.
EQUIVALENT = {
    'deep_sea': {'5ffc62a347513ac9', '87f3ddc60fe23257'},
    'deep_sea_stochastic': {'f60d935c922c81b3', '3ebb9cea239991be'},
    'cartpole_noise': {'10b40610fd6113b4', 'df558513b11523ac'},
}


def old_key(r: dict) -> str:
    "A record's key by the rule before the suite's code entered it, from the record's own columns."
    setting = json.loads(r['setting'])
    parts = (r['agent'], r['config_hash'], r['suite'], setting, r['prng_seed'], r['budget'], bool(r['stop_early']))
    return store.digest(*parts, r['code'], r['jax'], r['jaxlib'])


def new_key(r: dict, suite_code: str) -> str:
    "The key `store.call_records` gives the same run now."
    return store.record_key(dict(r, suite_code=suite_code))


def commit_fingerprints(commits) -> dict:
    "{commit: {suite: fingerprint}} for each commit (tools/suite_code_history.py, one interpreter a commit)."
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import suite_code_history

    return {c: suite_code_history.fingerprints(c) for c in sorted(commits)}


def plan(rows: list, history: dict, current: dict, equivalent: dict = EQUIVALENT) -> list:
    """(design, arm, old key, new key, suite code) of every record of `rows`; a `ValueError` for one whose key is
    not its columns' or that was computed by suite code not shown to compute what this checkout's does."""
    changes = []
    for r in rows:
        if r['key'] != old_key(r):
            raise ValueError(f"record {r['key']!r} ({r['design']}, {r['arm']}): its key is not its columns' key")
        then = (history.get(r['git_commit']) or {}).get(r['suite'])
        if then not in equivalent.get(r['suite'], set()) | {current[r['suite']]}:
            raise ValueError(
                f"record {r['key']!r} ({r['design']}, {r['arm']}) was computed at commit {r['git_commit']!r} by "
                f"suite code {then!r}, not one shown to compute what {current[r['suite']]!r} does"
            )
        changes.append((r['design'], r['arm'], r['key'], new_key(r, current[r['suite']]), current[r['suite']]))
    return changes


def migrate(out, history=commit_fingerprints, dry_run: bool = False) -> int:
    "Give every record of the store in `out` its suite code and key; returns how many records changed."
    out, path = Path(out), Path(out) / store.STORE_FILE
    if any(p.is_file() for p in (out / store.CHECKPOINTS_DIR).rglob('*')):
        raise ValueError(f"{str(out)!r} has a call in flight ({store.CHECKPOINTS_DIR}/): finish it first")
    con = sqlite3.connect(path, timeout=120)
    try:
        have = [row[1] for row in con.execute('PRAGMA table_info(records)')]
        if 'suite_code' in have:
            return 0
        rows = [dict(zip(have, row)) for row in con.execute(f"SELECT {', '.join(have)} FROM records")]
        current = {name: store.suite_fingerprint(s) for name, s in suites().items()}
        changes = plan(rows, history({r['git_commit'] for r in rows}), current)
        if dry_run:
            return len(changes)
        with con:
            con.execute('ALTER TABLE records ADD COLUMN suite_code')
            con.executemany(
                'UPDATE records SET key = ?, suite_code = ? WHERE design = ? AND arm = ? AND key = ?',
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
