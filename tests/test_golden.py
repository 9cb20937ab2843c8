"""The golden runs of `tools/golden.py`: short training runs with fixed keys, every online and target parameter and
every logged value fingerprinted. A change of behaviour must be deliberate: regenerate the file in a commit of its
own and say why. Bit-identity is a property of the machine kind and jax version that recorded the file; elsewhere
float rounding may differ, so the test is skipped there (with the reason)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'tools'))
import golden  # noqa: E402

GOLDEN = json.loads(golden.GOLDEN.read_text())
SAME_MACHINE = GOLDEN['machine'] == golden.machine()
QUICK = ['boot_dqn@deep_sea', 'dqn@chain', 'tdu_qu@deep_sea', 'ucb_infogain@chain']   # one of each agent family


def check(runs):
    cases = {c: (a, o) for c, a, o in golden.CASES}
    current = {'runs': {}}
    for run in runs:
        case, env = run.split('@')
        current['runs'][run] = golden.run_case(*cases[case], env)
    problems = golden.compare({'runs': {r: GOLDEN['runs'][r] for r in runs}}, current)
    assert not problems, '\n'.join(problems)


@pytest.mark.skipif(not SAME_MACHINE, reason=f"golden runs recorded on {GOLDEN['machine']}, not this machine")
def test_golden_runs_bit_identical_quick():
    check(QUICK)


@pytest.mark.slow
@pytest.mark.skipif(not SAME_MACHINE, reason=f"golden runs recorded on {GOLDEN['machine']}, not this machine")
def test_golden_runs_bit_identical_all():
    check(list(GOLDEN['runs']))
