"""CI's budget (30 minutes on 2 cores) leaves each commit one share of the long tests (`.ci/run`): the two selections
CI runs must together hold every test that the full marked run holds, each exactly once, and the shares must be cut
from measured seconds (`tests/durations.json`, pytest-split's format) for every one of them."""

import itertools
import json
import re

from _pytest.mark.expression import Expression
from conftest import ROOT

CI = (ROOT / '.ci' / 'run').read_text()
MARKS = ('long', 'data', 'browser', 'worktree', 'ci', 'slow')
README = (ROOT / 'README.md').read_text()
# what every change runs before it lands: the README's line that adds the marked tests to the test command
FULL = re.search(r'^nbdev_test && pytest && pytest -m "(.*?)"', README, re.M).group(1)


def selection(name: str) -> str:
    "The `-m` expression of the pytest command `.ci/run` keeps in shell variable `name`."
    command = re.search(rf'^{name}=(.*)$', CI, re.M).group(1)
    return re.search(r'-m \\?"(.*?)\\?"', command).group(1)


def selected(expression: str, marks: set) -> bool:
    return Expression.compile(expression).evaluate(lambda name: name in marks)


def test_ci_runs_every_marked_test_at_every_commit_or_in_one_share():
    every, shares = selection('CI_EVERY'), selection('CI_SHARE')
    for n in range(len(MARKS) + 1):
        for marks in map(set, itertools.combinations(MARKS, n)):
            if 'ci' in marks and 'long' not in marks:
                continue  # `ci` marks long tests only (pytest.ini)
            assert selected(FULL, marks) == (selected(every, marks) or selected(shares, marks)), marks
            assert not (selected(every, marks) and selected(shares, marks)), marks  # run twice, time lost


def test_the_shares_are_cut_from_measured_seconds():
    assert re.search(r'--durations-path tests/durations\.json', CI) and re.search(r'^CI_SHARES=\d+$', CI, re.M)
    seconds = json.loads((ROOT / 'tests' / 'durations.json').read_text())
    assert len(seconds) >= 50 and all(k.startswith('tests/test_') and '::' in k for k in seconds), list(seconds)[:3]
    assert all(isinstance(v, float) and v > 0 for v in seconds.values())
    for nodeid in seconds:  # every test named is still there (a renamed test would be cut by the mean)
        path, name = nodeid.split('::')[0], re.split(r'[\[:]', nodeid.split('::')[1])[0]
        assert re.search(rf'^(async )?def {re.escape(name)}\(', (ROOT / path).read_text(), re.M), nodeid


def test_the_readme_test_command_is_the_first_nbdev_test_line():
    "`.ci/run` takes the README's first line that starts with `nbdev_test`: it must be the test command."
    assert re.search(r'^nbdev_test.*$', README, re.M).group() == 'nbdev_test && pytest'


def test_the_readme_names_ci_s_slots():
    "The README says how many slots CI rotates through: the shares and the lowest jax's one."
    shares = int(re.search(r'^CI_SHARES=(\d+)$', CI, re.M).group(1))
    assert f'one of {shares + 1} slots' in ' '.join(README.split()), shares
    assert re.search(r'^slot=\$\(\( 16#\$\{sha:0:8\} % \(CI_SHARES \+ 1\) \+ 1 \)\)$', CI, re.M)
    assert re.search(r'if \[ \$slot -gt \$CI_SHARES \]; then', CI)  # the last slot is the lowest jax's
