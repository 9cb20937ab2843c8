"""A third-party agent registers through the entry-point group `uncertain_rl.agents`, and a third-party environment
through `uncertain_rl.envs`, each from a package of its own, in one file, without editing ours. We install a toy of
each the way pip would (its module and a `.dist-info` with the entry point, on the path of fresh processes) and check
that the command line, the viewer, the documentation build and the golden tool all pick them up."""

import json
import os
import subprocess
import sys
import pytest
from conftest import ROOT

TOY = '''"""A toy agent in one file: DQN's learner under another name, with a viewer signal of its own."""
import jax.numpy as jnp

from uncertain_rl.agents.dqn import DQNConfig, make_dqn
from uncertain_rl.base import AgentEntry, DocsSection, GoldenCase, Preset, Signal


def make_toy(config, spec):
    "DQN, whose snapshots also record each cell's largest Q."
    agent = make_dqn(config, spec)
    def cell_signals(state, cells):
        signals = agent.cell_signals(state, cells)
        return dict(signals, toy_max_q=jnp.max(signals['q_mean'], -1))
    return agent._replace(cell_signals=cell_signals)


ENTRIES = (AgentEntry('toy', DQNConfig, make_toy, 'a toy: DQN with a signal of its own',
                      defaults=dict(hidden_sizes=(8,)), options=('prior_scale',),
                      presets=(Preset('wide', dict(hidden_sizes=(32,)), (), 'a wider net'),),
                      signals=(Signal('toy_max_q', 'toy max Q', per_action=False, help="the toy's largest Q"),),
                      golden=(GoldenCase('toy', dict(min_replay_size=8, batch_size=8), envs=('deep_sea',)),),
                      docs=DocsSection('Toy agents')),)
'''


TOY_ENV = '''"""A toy environment in one file: Deep Sea under a name of its own, with its own solved rule and
horizon."""
import numpy as np

from uncertain_rl.base import EnvEntry
from uncertain_rl.envs.deep_sea import DeepSea


class ToySea(DeepSea):
    "Deep Sea under a name of its own (its cells, for the viewer, are Deep Sea's)."


def solved(logs):
    "Solved at the first episode that found the treasure (0: never)."
    found = np.asarray(logs['denoised_return']) > 0
    return np.where(found.any(-1), found.argmax(-1) + 1, 0)


ENTRIES = (EnvEntry('toy_sea', lambda size, mapping_seed: ToySea(size, mapping_seed=mapping_seed),
                    'a toy: Deep Sea under its own name', solved=solved, value_range=lambda params, discount: (-1., 1.),
                    horizon=50),)
'''


def install(d, module: str, text: str, group: str, name: str) -> None:
    "Write `module` and a `.dist-info` whose entry point `name` in `group` names its ENTRIES, as pip installs it."
    (d / f'{module}.py').write_text(text)
    info = d / f'{module}-0.1.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1\n")
    (info / 'entry_points.txt').write_text(f'[{group}]\n{name} = {module}:ENTRIES\n')


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    "A folder holding the toy packages, installed as pip installs them: module, METADATA and entry_points.txt."
    d = tmp_path_factory.mktemp('site')
    install(d, 'toy_agent', TOY, 'uncertain_rl.agents', 'toy')
    install(d, 'toy_env', TOY_ENV, 'uncertain_rl.envs', 'toy_sea')
    return d


def python(site, *args, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get('PYTHONPATH', '')]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


@pytest.mark.long
def test_the_command_line_trains_it_and_the_viewer_shows_its_signal(site, tmp_path):
    r = python(site, '-m', 'uncertain_rl', 'train', '--help')
    assert r.returncode == 0 and 'toy' in r.stdout, r.stderr
    r = python(site, '-m', 'uncertain_rl', 'agents', 'toy')
    assert r.returncode == 0 and 'a toy: DQN' in r.stdout and '--preset wide' in r.stdout, r.stdout + r.stderr
    out = tmp_path / 'run'
    r = python(
        site,
        '-m',
        'uncertain_rl',
        'train',
        '--agent',
        'toy',
        '--size',
        '4',
        '--episodes',
        '12',
        '--seeds',
        '1',
        '--preset',
        'wide',
        '--prior-scale',
        '1',
        '--snapshots',
        '3',
        '--out',
        str(out),
        '--no-progress',
    )
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / 'summary.json').read_text())
    assert (
        summary['agent'] == 'toy' and summary['presets'] == ['wide'] and summary['agent_config']['prior_scale'] == 1.0
    )
    r = python(site, '-m', 'uncertain_rl', 'view', str(out))
    assert r.returncode == 0, r.stderr
    page = (out / 'viewer.html').read_text()
    assert '"toy max Q"' in page and "the toy's largest Q" in page


@pytest.mark.long
def test_the_docs_and_the_golden_tool_pick_it_up(site, tmp_path):
    src = tmp_path / 'docs_src'
    r = python(
        site,
        '-c',
        f'import sys; sys.path.insert(0, "tools"); import docs; docs.write_sources({str(src)!r}); '
        f'print(open({str(src / "agents.md")!r}).read())',
    )
    assert r.returncode == 0, r.stderr
    assert '`toy`' in r.stdout and 'a toy: DQN with a signal of its own' in r.stdout and 'Toy agents' in r.stdout
    r = python(site, 'tools/golden.py', 'list')
    assert r.returncode == 0 and 'toy@deep_sea' in r.stdout, r.stderr
    r = python(site, 'tools/golden.py', 'record', '--only', 'toy@deep_sea', '--file', str(tmp_path / 'g.json'))
    assert r.returncode == 0, r.stderr
    runs = json.loads((tmp_path / 'g.json').read_text())['runs']
    assert list(runs) == ['toy@deep_sea'] and 'logs/episode_return' in runs['toy@deep_sea']


@pytest.mark.long
def test_a_toy_environment_reaches_the_command_line_the_viewer_and_the_docs(site, tmp_path):
    r = python(site, '-m', 'uncertain_rl', 'train', '--help')
    assert r.returncode == 0 and 'toy_sea' in r.stdout, r.stderr
    r = python(site, '-m', 'uncertain_rl', 'envs', 'toy_sea')
    assert (
        r.returncode == 0
        and 'a toy: Deep Sea under its own name' in r.stdout
        and 'horizon 50 episodes' in r.stdout
        and 'declares solved, value_range' in r.stdout
        and 'module toy_env' in r.stdout
    ), r.stdout + r.stderr
    out = tmp_path / 'run'
    r = python(
        site,
        '-m',
        'uncertain_rl',
        'train',
        '--agent',
        'toy',
        '--env',
        'toy_sea',
        '--size',
        '4',
        '--episodes',
        '12',
        '--seeds',
        '1',
        '--snapshots',
        '3',
        '--out',
        str(out),
        '--no-progress',
    )  # a plugin agent on it too
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / 'summary.json').read_text())
    assert summary['experiment']['env'] == 'toy_sea' and summary['agent'] == 'toy'
    r = python(site, '-m', 'uncertain_rl', 'view', str(out))
    assert r.returncode == 0 and (out / 'viewer.html').is_file(), r.stderr
    src = tmp_path / 'docs_src'
    r = python(
        site,
        '-c',
        f'import sys; sys.path.insert(0, "tools"); import docs; docs.write_sources({str(src)!r}); '
        f'print(open({str(src / "environments.md")!r}).read())',
    )
    assert r.returncode == 0, r.stderr
    assert '| `toy_sea` (module `toy_env`) | a toy: Deep Sea under its own name |' in r.stdout, r.stdout
    assert '| [`deep_sea`](10_envs.deep_sea.ipynb) |' in r.stdout  # ours beside it, linked to its notebook


def test_without_the_package_it_is_not_there():
    from uncertain_rl.registry import AGENTS, ENVS

    assert 'toy' not in AGENTS and 'toy_sea' not in ENVS
