"""The golden runs of `tools/golden.py`: short training runs with fixed keys, every state leaf and every logged value
fingerprinted, one set of cases per registered agent (each agent declares its own). A change of behaviour must be
deliberate: regenerate the file in a commit of its own and say why. Bit-identity is a property of the machine kind
and jax version that recorded the file; elsewhere float rounding may differ, so the test is skipped there (with the
reason)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'tools'))
import golden  # noqa: E402

GOLDEN = json.loads(golden.GOLDEN.read_text())
SAME_MACHINE = GOLDEN['machine'] == golden.machine()
QUICK = ['boot_dqn@deep_sea', 'tdu_qu@deep_sea', 'ucb_infogain@chain', 'pe_dqn@deep_sea', 'e_az@deep_sea',
         'iv_sac@pendulum']   # one of each agent family (DQN and IV-DQN share Bootstrapped DQN's learner)


def check(runs):
    cases = {run: (agent, overrides, env) for run, _, agent, overrides, env in golden.cases()}
    current = {'runs': {run: golden.run_case(*cases[run]) for run in runs}}
    problems = golden.compare({'runs': {r: GOLDEN['runs'][r] for r in runs}}, current)
    assert not problems, '\n'.join(problems)


def test_every_registered_agent_has_golden_runs():
    from uncertain_rl.registry import AGENTS
    declared = {agent for _, _, agent, _, _ in golden.cases()}
    assert declared == set(AGENTS), set(AGENTS) - declared
    assert {run for run, *_ in golden.cases()} == set(GOLDEN['runs']), 'the golden file is not up to date'


@pytest.mark.skipif(not SAME_MACHINE, reason=f"golden runs recorded on {GOLDEN['machine']}, not this machine")
def test_golden_runs_bit_identical_quick():
    check(QUICK)


@pytest.mark.slow
@pytest.mark.skipif(not SAME_MACHINE, reason=f"golden runs recorded on {GOLDEN['machine']}, not this machine")
def test_golden_runs_bit_identical_all():
    check(list(GOLDEN['runs']))
