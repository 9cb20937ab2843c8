"""Specs against a hostile user (issue 59): a spec is data, through `--from SPEC`, `--from DIR` and `--resume DIR`,
and never names a function; malformed keys and JSON nested too deep are refused in one line (exit 2)."""

import json
import tempfile
from pathlib import Path

import pytest

from conftest import refused
from uncertain_rl.experiments import Experiment

NET = dict(num_ensemble=2, hidden_sizes=(8,), min_replay_size=16, batch_size=16)


def hostile_spec(tmp_path: Path) -> dict:
    """A spec whose environment parameters name a function by import path (`tempfile.mkdtemp` reached through a module
    of ours), with no fields: loading it called `tempfile.mkdtemp()`, which made a directory."""
    spec = Experiment('boot_dqn', 'deep_sea', episodes=5, size=6, overrides=NET).spec()
    spec['env_params'] = {'class': 'uncertain_rl.experiments:tempfile.mkdtemp', 'fields': {}, 'dtypes': {}}
    return spec


@pytest.fixture
def watched_tmp(tmp_path, monkeypatch):
    "Where `tempfile.mkdtemp` makes its directories during the test: an empty folder that must stay empty."
    where = tmp_path / 'tmp'
    where.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(where))
    yield where
    assert list(where.iterdir()) == [], 'a spec called a function'


def test_a_spec_file_cannot_call_a_function(tmp_path, capsys, watched_tmp):
    (tmp_path / 'spec.json').write_text(json.dumps(hostile_spec(tmp_path)))
    err = refused(capsys, 'train', '--from', tmp_path / 'spec.json', '--out', tmp_path / 'run')
    assert "env_params must be the parameters of env 'deep_sea'" in err


def test_a_run_directory_cannot_call_a_function(tmp_path, capsys, watched_tmp):
    d = tmp_path / 'first'
    d.mkdir()
    (d / 'summary.json').write_text(json.dumps({'status': 'interrupted', 'spec': hostile_spec(tmp_path)}))
    assert "env_params must be the parameters" in refused(capsys, 'train', '--from', d, '--out', tmp_path / 'again')
    assert "env_params must be the parameters" in refused(capsys, 'train', '--resume', d)


@pytest.mark.parametrize(
    'keys',
    [{'keys': [[1, 2], [3, 4]]}, {'keys': [[1, 2, 3]]}, {'keys': [[-1, 2]]}, {'keys': [[1, 2**32]]}, {'keys': 7}, [1]],
)
def test_keys_of_the_wrong_shape_are_one_line(tmp_path, capsys, keys):
    "`--from` a spec whose `keys` has the wrong shape (two keys for one seed, three words...) ended in a traceback."
    spec = dict(Experiment(episodes=5, size=6).spec(), keys=keys)
    (tmp_path / 'spec.json').write_text(json.dumps(spec))
    assert 'keys must be' in refused(capsys, 'train', '--from', tmp_path / 'spec.json', '--out', tmp_path / 'run')


def test_a_spec_nested_too_deep_is_one_line(tmp_path, capsys):
    "A 100,000-deep JSON array as a spec ended in a RecursionError traceback; as a summary too."
    (tmp_path / 'spec.json').write_text('[' * 100_000 + ']' * 100_000)
    assert 'not a JSON spec' in refused(capsys, 'train', '--from', tmp_path / 'spec.json', '--out', tmp_path / 'r')
    (tmp_path / 'dir').mkdir()
    (tmp_path / 'dir' / 'summary.json').write_text('{"spec": ' + '[' * 100_000 + ']' * 100_000 + '}')
    assert 'is not valid JSON' in refused(capsys, 'train', '--resume', tmp_path / 'dir')
