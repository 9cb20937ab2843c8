"""Whether a suite's code that computes records changed over the commits that could have written a store.

`python tools/suite_code_history.py [FIRST_COMMIT]` prints, for FIRST_COMMIT (default: the one that made `suites` a
subpackage) and every later commit that touched `uncertain_rl/`, the fingerprint of each suite's code that computes a
record (its `experiment`, `run_params` and `metrics`), computed by this checkout's `store.code_fingerprint` on that
commit's package, and marks the commits where one changed. Until 70b2f33 a record's key covered the agent's and
environment's code and not the suite's, whose `experiment` (Deep Sea's) was a closure over its rule and whose
`metrics` was a lambda; their fingerprint here covers the closure's captured values, and a lambda's source is the
lines around it (a change of formatting there changes the fingerprint without changing what it computes: read the diff
of a marked commit before calling it a change). Since, the three are named functions whose fingerprint
(`store.suite_fingerprint`, printed here for those commits) is in the key; `tools/migrate_suite_code.py` uses this
history to key older stores.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST = '7d1d044a7'  # `suites` became a subpackage: no store of this layout is older

PROBE = r'''
import ast, inspect, json, sys, types
tree = ast.parse(open(sys.argv[1]).read())
keep = {'_without_docstrings', '_syntax', '_constant', '_ours', '_referenced', '_process_state', 'code_fingerprint',
        'digest'}
body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and not getattr(n, 'level', 0)]
body += [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in keep]
fp = types.ModuleType('fp')
exec(compile(ast.Module(body, []), 'fp', 'exec'), fp.__dict__)
from uncertain_rl.suites.core import suites

def part(f):
    "One of a suite's functions: its code and, for a closure, the values it captured."
    cells = [c.cell_contents for c in (f.__closure__ or ())]
    code = [c for c in cells if inspect.isfunction(c) or inspect.isclass(c)]
    return fp.digest(fp.code_fingerprint(f, *code), *[fp._constant(c) for c in cells if c not in code])


def suite_fingerprint(suite):
    roots = [f for f in (suite.experiment, suite.run_params, suite.metrics) if f is not None]
    if all(f.__name__ != '<lambda>' and not f.__closure__ for f in roots):
        return fp.code_fingerprint(*roots)  # named functions: `store.suite_fingerprint`, as the key has it
    return fp.digest(*[part(f) if f is not None else None for f in (suite.experiment, suite.run_params, suite.metrics)])

print(json.dumps({name: suite_fingerprint(s) for name, s in sorted(suites().items())}))
'''


def fingerprints(commit: str) -> dict:
    "Each suite's fingerprint at `commit` (its package unpacked apart, imported in a fresh interpreter)."
    with tempfile.TemporaryDirectory() as d:
        archive = subprocess.run(['git', 'archive', commit, 'uncertain_rl'], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(['tar', '-x', '-C', d], input=archive.stdout, check=True)
        out = subprocess.run(
            [sys.executable, '-c', PROBE, str(ROOT / 'uncertain_rl' / 'suites' / 'store.py')],
            env={'PYTHONPATH': d, 'PATH': '/usr/bin:/bin', 'JAX_PLATFORMS': 'cpu'},
            cwd=d,  # `-c` puts the working directory first on the path: a checkout there would shadow the commit's
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    first = (argv if argv is not None else sys.argv[1:]) or [FIRST]
    commits = subprocess.run(
        ['git', 'rev-list', '--reverse', f'{first[0]}^..HEAD', '--', 'uncertain_rl/'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    before = None
    for c in commits:
        now = fingerprints(c)
        changed = [k for k in now if before is not None and before.get(k) != now[k]]
        print(c[:10], json.dumps(now), f"changed: {', '.join(changed)}" if changed else '')
        before = now
    return 0


if __name__ == '__main__':
    sys.exit(main())
