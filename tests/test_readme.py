"""The front door works as written: every Python block of the README (which is also the documentation's home page)
runs, as written, pasted into a fresh interpreter in an empty folder; and the README's two commands are the ones CI
runs (`.ci/run` reads them from it)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]


def python_blocks(path: Path) -> list:
    return re.findall(r'```python\n(.*?)```', path.read_text(), flags=re.S)


BLOCKS = [(p.name, i, block) for p in PAGES for i, block in enumerate(python_blocks(p))]


def test_the_readme_has_examples_and_the_two_commands():
    readme = (ROOT / 'README.md').read_text()
    assert len(python_blocks(ROOT / 'README.md')) >= 1
    assert re.search(r'^pip install ', readme, re.M) and re.search(r'^nbdev_test', readme, re.M)


@pytest.mark.parametrize('page, index, block', BLOCKS, ids=[f'{p}-{i}' for p, i, _ in BLOCKS])
@pytest.mark.long
def test_every_python_block_runs_as_written(page, index, block, tmp_path):
    r = subprocess.run([sys.executable, '-c', block], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f'{page}, block {index}:\n{block}\n{r.stderr[-3000:]}'


def test_help_lists_the_public_api_every_agent_included():
    """`help(uncertain_rl)` (pydoc) and `uncertain_rl.__all__` name every registered agent's config class and
    constructor."""
    import pydoc
    import uncertain_rl
    from uncertain_rl.registry import top_level_exports

    text = pydoc.render_doc(uncertain_rl, renderer=pydoc.plaintext)
    for name in top_level_exports():
        assert name in uncertain_rl.__all__ and name in text, name
    assert 'Experiment' in text and 'DeepSea' in text


def test_the_command_answers_help_and_usage_errors_without_jax():
    """`--help` and a usage error need only the registry's catalog: neither imports JAX (measured: about 0.2 s for the
    whole process, where importing JAX alone takes 0.6 s)."""
    probe = (
        'import sys\nfrom uncertain_rl.app.cli import main\n'
        'try: main(sys.argv[1:])\nexcept SystemExit: pass\n'
        'print("jax loaded" if any(m.split(".")[0] in ("jax", "flax", "optax") for m in sys.modules) else "no jax")'
    )
    for args in (
        ['--help'],
        ['train', '--help'],
        ['train', '--agent', 'nope'],
        ['train', '--beta', '1'],
        ['train', '--agent', 'sac'],
        ['train', '--size', 'ten'],
    ):
        r = subprocess.run([sys.executable, '-c', probe, *args], capture_output=True, text=True, timeout=120)
        assert r.stdout.strip().endswith('no jax'), (args, r.stdout[-300:], r.stderr[-300:])


def test_every_option_has_help_and_shows_its_default():
    from uncertain_rl.app.cli import build_parser

    parser = build_parser()
    train = parser._subparsers._group_actions[0].choices['train']
    for action in train._actions:
        if action.dest in ('help',):
            continue
        text = train._get_formatter()._expand_help(action) if action.help else ''
        assert text, action.dest
        shows_default = 'default' in text or action.nargs == 0  # agent options: 'agents and defaults: ...'
        assert shows_default, (action.dest, text)
