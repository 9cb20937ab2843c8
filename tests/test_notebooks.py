"""The notebooks are committed executed (`python tools/run_notebooks.py`), so that each reads as a finished tutorial
on GitHub and in the docs: every cell that draws a figure stores it, every cell that prints stores its text, and the
stored outputs stay small (no stderr, no oversized images)."""
import base64
import json
from pathlib import Path

import pytest

NBS = sorted((Path(__file__).resolve().parent.parent / 'nbs').glob('*.ipynb'))


def code_cells(path):
    return [c for c in json.loads(path.read_text())['cells'] if c['cell_type'] == 'code']


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_notebook_stores_its_outputs(path):
    for cell in code_cells(path):
        src, outputs = ''.join(cell['source']), cell.get('outputs', [])
        if src.lstrip().startswith('#| slow'): continue
        images = [o for o in outputs if 'image/png' in o.get('data', {})]
        defines = src.lstrip().startswith('#| export')                     # a definition draws only when called
        if not defines and ('plt.show()' in src or 'plt.subplots' in src):
            assert images, f'{path.name}: a figure cell has no stored figure (run tools/run_notebooks.py)\n{src[:200]}'
        if any(line.startswith('print(') for line in src.splitlines()):
            assert outputs, f'{path.name}: a printing cell has no stored output (run tools/run_notebooks.py)\n{src[:200]}'
        assert not [o for o in outputs if o.get('name') == 'stderr'], f'{path.name}: stderr stored'
        for o in images:
            assert len(base64.b64decode(o['data']['image/png'])) < 300_000, f'{path.name}: a figure over 300 kB'
