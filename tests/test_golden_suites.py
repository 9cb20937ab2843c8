"""A suite's code has its lineage as an agent's has (`tests/test_golden.py`): `tools/golden.py lineage` run in a
clone of this checkout. Its own file, so that CI's workers (which take a file each) run it beside the agents' lineage
test."""

import json

import pytest

from conftest import clone_with_this_tool


@pytest.mark.worktree
def test_lineage_shows_a_refactor_of_a_suites_code(tmp_path):
    """A suite's code has its lineage too: in a clone, one commit renames local variables of cartpole_noise's metrics
    (the suite's fingerprint moves, its records do not), and `lineage --since HEAD~1` runs the suite's quick table for
    DQN with both versions here and writes the entry *old -> new* for the suite; a second commit that changes what a
    record keeps is refused."""
    repo, git, run = clone_with_this_tool(tmp_path)
    suite = repo / 'uncertain_rl' / 'suites' / 'cartpole_noise.py'
    ledger = repo / 'uncertain_rl' / 'suites' / 'equivalent_code.json'

    def commit_and_lineage(*replacements) -> str:
        source = suite.read_text()
        for old, new in replacements:
            assert source.count(old) == 1, old
            source = source.replace(old, new)
        suite.write_text(source)
        git('commit', '-qam', 'change')
        return run('tools/golden.py', 'lineage', '--since', 'HEAD~1')

    before = json.loads(ledger.read_text())['replaced']
    out = commit_and_lineage(
        ('    raw = np.diff(', '    rows = np.diff('),
        ('dict(cartpole_run_summary(raw), played', 'dict(cartpole_run_summary(rows), played'),
    )
    fresh = json.loads(ledger.read_text())['replaced'][len(before) :]
    assert 'suite fingerprints moved for 1 suites: cartpole_noise' in out and 'wrote 1 equivalences' in out, out
    assert [e['suite'] for e in fresh] == ['cartpole_noise'] and 'quick table for dqn' in fresh[0]['evidence']
    out = commit_and_lineage(('played=int(played), episodes_to_750', 'played=int(played) + 1, episodes_to_750'))
    assert 'not shown: suite cartpole_noise' in out and 'wrote 0 equivalences' in out, out
