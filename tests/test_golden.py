"""The golden runs of `tools/golden.py`: short training runs with fixed keys, every state leaf and every logged value
fingerprinted, one set of cases per registered agent (each agent declares its own). A change of behaviour must be
deliberate: regenerate the file in a commit of its own and say why (`python tools/golden.py record`, which names the
machine kind it ran on). No machine skips them: on the machine kind that recorded the file (CPU model, architecture,
jax and jaxlib) they are compared bit for bit; on any other kind within `golden.RTOL` (float sums against their sums of
magnitudes), with every integer array (actions, episode lengths, counts, the solved-at episode) still bit for bit."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'tools'))
import golden  # noqa: E402

GOLDEN = json.loads(golden.GOLDEN.read_text())
EXACT = golden.same_kind(GOLDEN['machine'])
QUICK = [
    'boot_dqn@deep_sea',
    'tdu_qu@deep_sea',
    'ucb_infogain@chain',
    'pe_dqn@deep_sea',
    'e_az@deep_sea',
    'iv_sac@pendulum',
]  # one of each agent family (DQN and IV-DQN share Bootstrapped DQN's learner)


def check(runs):
    cases = {run: (agent, overrides, env) for run, _, agent, overrides, env in golden.cases()}
    current = {'runs': {run: golden.run_case(*cases[run]) for run in runs}}
    problems = golden.compare({'runs': {r: GOLDEN['runs'][r] for r in runs}}, current, exact=EXACT)
    how = 'bit for bit' if EXACT else f'within rtol {golden.RTOL:g} (recorded on {GOLDEN["machine"]})'
    print(f'golden runs checked {how} on {golden.machine()}')
    assert not problems, f'checked {how}:\n' + '\n'.join(problems)


def test_every_registered_agent_has_golden_runs():
    from uncertain_rl.registry import AGENTS

    declared = {agent for _, _, agent, _, _ in golden.cases()}
    assert declared == set(AGENTS), set(AGENTS) - declared
    assert {run for run, *_ in golden.cases()} == set(GOLDEN['runs']), 'the golden file is not up to date'
    assert set(GOLDEN['machine']) == {'cpu', 'machine', 'jax', 'jaxlib'} and GOLDEN['machine']['cpu']


def test_the_tolerance_check_passes_rounding_and_fails_changes():
    "Hand-made fingerprints: what the off-kind check accepts (last-bit float rounding) and refuses (anything else)."
    rng = np.random.default_rng(0)
    weights, actions = rng.normal(size=(64, 32)).astype(np.float32), rng.integers(0, 4, 100).astype(np.int32)
    recorded = {'runs': {'r': {'w': golden.fingerprint(weights), 'a': golden.fingerprint(actions)}}}

    def now(w=weights, a=actions):
        return {'runs': {'r': {'w': golden.fingerprint(w), 'a': golden.fingerprint(a)}}}

    rounded = weights * np.float32(1 + 2**-22)  # a couple of ulps on every weight
    assert golden.compare(recorded, now(rounded), exact=False) == []
    assert golden.compare(recorded, now(rounded), exact=True) != []  # the exact check sees the last bits
    assert golden.compare(recorded, now(weights + 0.01), exact=False)  # a change of behaviour: outside
    flipped = actions.copy()
    flipped[7] = (flipped[7] + 1) % 4  # one decision differs: integers are exact
    assert golden.compare(recorded, now(a=flipped), exact=False)
    assert golden.compare(recorded, now(weights[:, :31]), exact=False)  # another shape
    assert golden.compare(recorded, {'runs': {}}, exact=False) == ['r: missing']


def test_golden_runs_quick():
    check(QUICK)


@pytest.mark.slow
def test_golden_runs_all():
    check(list(GOLDEN['runs']))


def test_lineage_keeps_only_what_the_golden_runs_show():
    "`lineage`'s rule, on hand-made fingerprints: a moved fingerprint is kept only where the golden runs show it."
    fp = lambda run, env='e1', cls='envs.A': dict(run=run, env=env, env_class=cls)
    old = {'a|x': fp('a1'), 'b|x': fp('b1'), 'c|x': fp('c1'), 'd|x': fp('d1', 'e1', 'envs.B'), 'e|x': fp('e1')}
    new = {'a|x': fp('a2'), 'b|x': fp('b2'), 'c|x': fp('c1'), 'd|x': fp('d2', 'e2', 'envs.B'), 'e|x': fp('e2', 'e2')}
    golden_classes = {'a': {'envs.A'}, 'b': {'envs.A'}, 'd': {'envs.A'}, 'e': {'envs.A'}}
    entries, refused = golden.equivalences(old, new, {'a', 'c', 'd', 'e'}, golden_classes, 'shown')
    assert [(e['old'], e['new'], e['agent']) for e in entries] == [('a1', 'a2', 'a'), ('e1', 'e2', 'e')]
    assert all(e['evidence'] == 'shown' and e['env'] == 'x' for e in entries)
    assert [r.split(':')[0] for r in refused] == ['b|x', 'd|x']  # b: golden runs differ; d: an unchecked class
