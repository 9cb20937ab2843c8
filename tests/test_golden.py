"""The golden runs of `tools/golden.py`: short training runs with fixed keys, every state leaf and every logged value
fingerprinted, one set of cases per registered agent (each agent declares its own). A change of behaviour must be
deliberate: regenerate the file in a commit of its own and say why (`python tools/golden.py record`, which names the
machine kind it ran on). No machine skips them: on the machine kind that recorded the file (CPU model, instruction
sets, architecture, jax and jaxlib) they are compared bit for bit; on any other kind within `golden.RTOL` (float sums
against their sums of magnitudes; `golden.RTOL_FOR` for a few runs), with every integer array (actions, episode
lengths, counts, the solved-at episode) still bit for bit."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'tools'))
import golden  # noqa: E402
from conftest import clone_with_this_tool  # noqa: E402

GOLDEN = json.loads(golden.GOLDEN.read_text())
EXACT = golden.same_kind(GOLDEN['machine'])
QUICK = [
    'boot_dqn@deep_sea',
    'iv_dqn@deep_sea',
    'tdu_qu@deep_sea',
    'ucb_infogain@chain',
    'pe_dqn@deep_sea',
    'ids@deep_sea',
    'dltv@deep_sea',
    'e_az@deep_sea',
    'iv_sac@pendulum',
]
# One of each agent family (DQN shares Bootstrapped DQN's learner), and every agent whose learning test is `slow`
# (IDS, DLTV, IV-DQN, PE-DQN): in CI this run, not the learning test, says the agent still computes what learned.


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
    kind = {'cpu', 'isa', 'machine', 'jax', 'jaxlib'}  # and `xla_flags` where it was recorded with XLA_FLAGS set
    assert kind <= set(GOLDEN['machine']) <= kind | {'xla_flags'} and GOLDEN['machine']['cpu']


def test_the_machine_kind_names_the_instruction_sets():
    "Two CPUs of one model name, one with AVX-512: different kinds (XLA compiles for the host), so no exact check."
    zen3 = 'fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c hypervisor bmi1 avx2 bmi2 ibrs vaes vpclmulqdq sha_ni'
    zen4 = zen3 + ' avx512f avx512dq avx512bw avx512vl avx512_bf16 gfni'
    assert (
        golden.instruction_sets(zen3)
        == 'avx avx2 bmi1 bmi2 f16c fma sha_ni sse sse2 sse4_1 sse4_2 ssse3 vaes vpclmulqdq'
    )
    assert golden.instruction_sets(zen3.replace(' ibrs', ' stibp ssbd')) == golden.instruction_sets(zen3)
    kind = dict(cpu='AMD EPYC', isa=golden.instruction_sets(zen3), machine='x86_64', jax='0.10.2', jaxlib='0.10.2')
    assert golden.same_kind(kind, dict(kind))
    assert not golden.same_kind(kind, dict(kind, isa=golden.instruction_sets(zen4)))
    assert not golden.same_kind({k: v for k, v in kind.items() if k != 'isa'}, kind)  # a file from before: no kind
    assert set(golden.machine()) - {'xla_flags'} == set(kind)
    flagged = dict(kind, xla_flags='--xla_backend_optimization_level=0')  # XLA_FLAGS change the generated code
    assert not golden.same_kind(kind, flagged) and golden.same_kind(flagged, dict(flagged))


def test_runs_with_their_own_tolerance_are_golden_runs():
    "`RTOL_FOR` widens the off-kind check for named runs only, never past 2%, and never on the recording kind."
    assert set(golden.RTOL_FOR) <= set(GOLDEN['runs']) and all(
        golden.RTOL < t <= 2e-2 for t in golden.RTOL_FOR.values()
    )
    run = next(iter(golden.RTOL_FOR))
    fp = {k: v for k, v in GOLDEN['runs'][run].items() if v['dtype'].startswith('float') and v['abs_sum'] > 0}
    key, rec = next(iter(fp.items()))
    moved = dict(rec, sum=rec['sum'] + 0.5 * golden.RTOL_FOR[run] * rec['abs_sum'], sha256='0' * 24)
    assert golden.compare({'runs': {run: {key: rec}}}, {'runs': {run: {key: moved}}}, exact=False) == []
    assert golden.compare({'runs': {run: {key: rec}}}, {'runs': {run: {key: moved}}}, exact=True) != []
    other = {'runs': {'r': {key: rec}}}
    assert golden.compare(other, {'runs': {'r': {key: moved}}}, exact=False) != []  # another run: RTOL


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


@pytest.mark.long
@pytest.mark.ci  # at every commit, not in a share: CI's check of the agents whose learning tests are slow
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


@pytest.mark.worktree
def test_lineage_shows_refactors_of_an_agent_and_a_suite_on_the_machine_at_hand(tmp_path):
    """Refactors made and shown here, on whatever machine runs the tests: in a clone of this checkout, one commit
    renames local variables of DQN's `act` (its fingerprint moves, its behaviour does not) and of cartpole_noise's
    metrics (the suite's fingerprint moves, its records do not). `lineage --since HEAD~1 --only dqn@chain` records
    that golden run with both versions on this machine, runs the suite's quick table for DQN with both, and writes
    the entries *old -> new* for the agent, which the store's `same_code` then follows, and for the suite. A second
    commit that changes what a suite's record keeps is refused. (An agent's change of behaviour is refused: `same_runs`
    below, and the rule on hand-made fingerprints above.) One clone and two `lineage` calls, a minute each."""
    repo, git, run = clone_with_this_tool(tmp_path)
    dqn = repo / 'uncertain_rl' / 'agents' / 'dqn.py'
    suite = repo / 'uncertain_rl' / 'suites' / 'cartpole_noise.py'
    ledger = repo / 'uncertain_rl' / 'suites' / 'equivalent_code.json'
    fingerprint = 'from uncertain_rl.registry import make_env; '
    fingerprint += 'from uncertain_rl.suites.fingerprints import run_fingerprint; '
    fingerprint += "print(run_fingerprint('dqn', make_env('chain', 10, 42)))"

    def replace(path, *replacements) -> None:
        source = path.read_text()
        for old, new in replacements:
            assert source.count(old) == 1, old
            source = source.replace(old, new)
        path.write_text(source)

    before = json.loads(ledger.read_text())['replaced']
    old = run('-c', fingerprint).strip()
    replace(
        dqn,
        ('k_tie, k_coin, k_action = jax.random.split(key, 3)', 'tie, coin, pick = jax.random.split(key, 3)'),
        ('random_argmax(k_tie, acting_q', 'random_argmax(tie, acting_q'),
        ('epsilon_greedy(k_coin, k_action, action', 'epsilon_greedy(coin, pick, action'),
    )
    replace(
        suite,
        ('    raw = np.diff(', '    rows = np.diff('),
        ('dict(cartpole_run_summary(raw), played', 'dict(cartpole_run_summary(rows), played'),
    )
    git('commit', '-qam', 'rename')
    out = run('tools/golden.py', 'lineage', '--since', 'HEAD~1', '--only', 'dqn@chain')
    new = run('-c', fingerprint).strip()
    after = json.loads(ledger.read_text())['replaced']
    fresh = after[len(before) :]
    agent_entries = [e for e in fresh if 'agent' in e]
    assert old != new and f'wrote {len(fresh)} equivalences' in out and after[: len(before)] == before, out
    assert {e['agent'] for e in agent_entries} == {'dqn'} and (old, new) in [(e['old'], e['new']) for e in fresh]
    # one entry per environment DQN runs on: the agent's code moved, each environment class kept its source
    assert len(agent_entries) == len({e['env'] for e in agent_entries}) > 1
    assert all(
        'dqn@chain bit-identical' in e['evidence'] and golden.machine()['cpu'] in e['evidence'] for e in agent_entries
    )
    from uncertain_rl.suites.fingerprints import equivalent_code, same_code

    linked = same_code(new, equivalent_code(ledger))
    assert linked[0] == new and old in linked  # the store finds the old code's records (and its own lineage's)
    assert 'suite fingerprints moved for 1 suites: cartpole_noise' in out, out
    assert [e['suite'] for e in fresh if 'suite' in e] == ['cartpole_noise'], fresh
    assert 'quick table for dqn' in fresh[-1]['evidence'], fresh[-1]

    replace(suite, ('played=int(played), episodes_to_750', 'played=int(played) + 1, episodes_to_750'))
    git('commit', '-qam', 'change what a record keeps')
    out = run('tools/golden.py', 'lineage', '--since', 'HEAD~1')
    assert 'not shown: suite cartpole_noise' in out and 'wrote 0 equivalences' in out, out


def test_same_runs_passes_only_agents_whose_every_run_is_bit_identical():
    "`lineage`'s comparison of two versions' golden runs, on hand-made records: one differing leaf refuses the agent."
    rng = np.random.default_rng(1)
    leaf = lambda: {'w': golden.fingerprint(rng.normal(size=8).astype(np.float32))}
    old = {'runs': {'a@x': leaf(), 'a@y': leaf(), 'b@x': leaf(), 'c@x': leaf()}}
    new = {'runs': {k: dict(v) for k, v in old['runs'].items()}}
    w = np.frombuffer(bytes.fromhex(old['runs']['a@y']['w']['sha256']), np.uint8)  # any other bytes: another hash
    new['runs']['a@y'] = {'w': golden.fingerprint(w)}
    del new['runs']['c@x']  # a run the new code no longer records
    agents = {'a@x': 'a', 'a@y': 'a', 'b@x': 'b', 'c@x': 'c'}
    assert golden.same_runs(old, new, list(agents), agents) == {'b'}
    assert golden.same_runs(old, new, ['a@x', 'b@x'], agents) == {'a', 'b'}  # a@y not asked for
    # an array only the new code has (state it added) is no difference; one the old code had and the new lacks is
    new['runs']['b@x'] = dict(new['runs']['b@x'], added=leaf()['w'])
    assert golden.same_runs(old, new, ['b@x'], agents) == {'b'}
    new['runs']['b@x'] = {'added': leaf()['w']}
    assert golden.same_runs(old, new, ['b@x'], agents) == set()
