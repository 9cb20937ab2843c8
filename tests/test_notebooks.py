"""The notebooks are committed executed (`python tools/run_notebooks.py`), so that each reads as a finished tutorial
on GitHub and in the docs: every cell that draws a figure stores it, every cell that prints stores its text, and the
stored outputs stay small (no stderr, no oversized images)."""

import base64
import re
import json
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT

NBS = sorted((Path(__file__).resolve().parent.parent / 'nbs').glob('*.ipynb'))


def code_cells(path):
    return [c for c in json.loads(path.read_text())['cells'] if c['cell_type'] == 'code']


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_notebook_stores_its_outputs(path):
    for cell in code_cells(path):
        src, outputs = ''.join(cell['source']), cell.get('outputs', [])
        if src.lstrip().startswith('#| slow'):
            continue
        images = [o for o in outputs if 'image/png' in o.get('data', {})]
        defines = src.lstrip().startswith('#| export')  # a definition draws only when called
        if not defines and ('plt.show()' in src or 'plt.subplots' in src):
            assert images, f'{path.name}: a figure cell has no stored figure (run tools/run_notebooks.py)\n{src[:200]}'
        if any(line.startswith('print(') for line in src.splitlines()):
            assert outputs, (
                f'{path.name}: a printing cell has no stored output (run tools/run_notebooks.py)\n{src[:200]}'
            )
        assert not [o for o in outputs if o.get('name') == 'stderr'], f'{path.name}: stderr stored'
        for o in images:
            assert len(base64.b64decode(o['data']['image/png'])) < 300_000, f'{path.name}: a figure over 300 kB'


# A number in result prose: thousands with commas, a decimal, or three or more digits (one- and two-digit numbers are
# mostly counts the text defines: seeds, sizes, equation numbers). Years (citations) are not results.
NUMBER = re.compile(r'(?<![\w.\-])(\d{1,3}(?:,\d{3})+|\d+\.\d+|\d{3,})(?![\w])')
NOT_PROSE = re.compile(r'\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\]\([^)]*\)', re.S)  # LaTeX, code spans, link targets


def stored_text(cells) -> str:
    "Every code cell's source and the text of its stored outputs (streams, plain text, markdown, HTML)."
    parts = []
    for c in cells:
        if c['cell_type'] != 'code':
            continue
        parts.append(''.join(c['source']))
        for o in c.get('outputs', []):
            data = o.get('data', {})
            parts += [''.join(o.get('text', ''))] + [
                ''.join(data.get(k, '')) for k in ('text/plain', 'text/markdown', 'text/html')
            ]
    return '\n'.join(parts)


def unsupported_numbers(cells) -> list:
    "(cell id, number) for each number in a markdown cell right after a cell with outputs that no output or code holds."
    text, found = stored_text(cells), []
    for before, cell in zip(cells, cells[1:]):
        if cell['cell_type'] != 'markdown' or before['cell_type'] != 'code' or not before.get('outputs'):
            continue
        for n in NUMBER.findall(NOT_PROSE.sub(' ', ''.join(cell['source']))):
            if not re.fullmatch(r'(19|20)\d\d', n) and n not in text and n.replace(',', '') not in text:
                found.append((cell.get('id'), n))
    return found


def test_unsupported_numbers_are_found():
    "The check can fail: a number that no output holds is reported, one that an output holds is not."
    code = {
        'cell_type': 'code',
        'source': ['print(x)'],
        'outputs': [{'output_type': 'stream', 'text': ['0.731 and 1,204\n']}],
    }
    prose = lambda s: {'cell_type': 'markdown', 'id': 'm', 'source': [s]}
    assert (
        unsupported_numbers([code, prose('rate 0.731 after 1,204 episodes, in 2024, $p = 0.25$, `--episodes 500`')])
        == []
    )
    assert unsupported_numbers([code, prose('rate 0.74 after 1,205 episodes')]) == [('m', '0.74'), ('m', '1,205')]
    assert unsupported_numbers([{**code, 'outputs': []}, prose('rate 0.74')]) == []  # not after an output: not checked


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_result_prose_quotes_stored_outputs(path):
    """Numbers in the prose that reads a cell's results (the markdown right after a cell with stored outputs) come from
    the notebook's stored outputs or code: a number no output holds was typed in from a run that no one can re-read."""
    found = unsupported_numbers(json.loads(path.read_text())['cells'])
    assert not found, f'{path.name}: numbers in result prose that no stored output or code holds: {found}'


JOURNAL = re.compile(r'results/issue\d+|our guess before|not the cause either')


def journal_lines(cells) -> list:
    "(cell id, match) for each cell that reads a file named after an issue or narrates an investigation."
    return [(c.get('id'), m.group()) for c in cells for m in JOURNAL.finditer(''.join(c['source']))]


def test_journal_lines_are_found():
    cell = lambda src: {'cell_type': 'code', 'id': 'x', 'source': [src]}
    assert journal_lines([cell("print(open('benchmarks/results/issue29/t.txt').read())")]) == [('x', 'results/issue29')]
    assert journal_lines([cell("print(open('benchmarks/results/speed/t.txt').read())")]) == []


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_notebook_reads_as_a_paper_not_a_journal(path):
    """A notebook states what was tested and what was found: it reads no file named after the issue that made it
    (results live under what they measure) and does not narrate the investigation."""
    found = journal_lines(json.loads(path.read_text())['cells'])
    assert not found, f'{path.name}: {found}'


def long_cells(path) -> int:
    "How many of the notebook's code cells carry `#| long` (checks `nbdev_test` leaves out)."
    return sum(bool(re.match(r'(#\|[^\n]*\n)*#\| long\b', ''.join(c['source']))) for c in code_cells(path))


LONG = [p for p in NBS if long_cells(p)]


def test_long_cells_are_found(tmp_path):
    "The check can fail: a cell whose directives include `#| long` counts, one that merely mentions it does not."
    nb = tmp_path / 'x.ipynb'
    for source, count in (('#| long\nx = 1', 1), ('#| echo: false\n#| long\nx = 1', 1), ('x = 1  # not #| long', 0)):
        nb.write_text(json.dumps({'cells': [{'cell_type': 'code', 'source': [source]}]}))
        assert long_cells(nb) == count, source
    assert len(LONG) >= 9, [p.stem for p in LONG]


@pytest.mark.long
@pytest.mark.parametrize('path', LONG, ids=lambda p: p.stem)
def test_notebook_with_its_long_cells(path):
    """The notebook whole, its `#| long` cells included, as `nbdev_test --flags long` runs it: the checks that the
    README's `nbdev_test` leaves out (they train or trace whole runs), here so that CI runs them in its shares."""
    run = subprocess.run(
        ['nbdev_test', '--path', str(path), '--flags', 'long'], cwd=ROOT, capture_output=True, text=True, timeout=3600
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
