"""The front door works as written: every Python block of the README (which is also the documentation's home page)
runs, as written, pasted into a fresh interpreter in an empty folder; and the README's two commands are the ones CI
runs (`.ci/run` reads them from it)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]


def python_blocks(path: Path) -> list:
    return re.findall(r'```python\n(.*?)```', path.read_text(), flags=re.S)


BLOCKS = [(p.name, i, block) for p in PAGES for i, block in enumerate(python_blocks(p))]


def test_the_readme_has_examples_and_the_two_commands():
    readme = (ROOT / 'README.md').read_text()
    assert len(python_blocks(ROOT / 'README.md')) >= 1
    assert re.search(r'^pip install ', readme, re.M) and re.search(r'^nbdev_test', readme, re.M)


@pytest.mark.parametrize('page, index, block', BLOCKS, ids=[f'{p}-{i}' for p, i, _ in BLOCKS])
def test_every_python_block_runs_as_written(page, index, block, tmp_path):
    r = subprocess.run([sys.executable, '-c', block], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f'{page}, block {index}:\n{block}\n{r.stderr[-3000:]}'
