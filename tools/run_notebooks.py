"""Execute the notebooks and store their outputs, so that each reads as a finished tutorial on GitHub, in Jupyter
and in the docs.

    python tools/run_notebooks.py                  # every notebook in nbs/ (about 4 minutes on 2 cores)
    python tools/run_notebooks.py 30_tdu 40_ucb    # some of them (names without .ipynb)
    python tools/run_notebooks.py --slow           # also run the cells flagged `#| slow`

Cells flagged `#| slow` (nbdev's `tst_flags`, skipped by `nbdev_test`) keep the outputs of their last run unless
`--slow` is given. Outputs are kept small: figures at 80 dpi as 2x PNG (retina: sharp on a high-density screen), no
stderr streams (progress bars, warnings), long text cut to its last lines. A notebook that raises is not written, and
the command exits 1. Afterwards `nbdev_clean` strips volatile metadata (execution counts, cell metadata) and keeps the
outputs.
"""

import argparse
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

NBS = Path(__file__).resolve().parent.parent / 'nbs'
MAX_TEXT_LINES = 40
SETUP = "import matplotlib as _mpl; _mpl.rcParams['figure.dpi'] = 80"


def is_slow(cell) -> bool:
    "A code cell flagged `#| slow`."
    return cell.cell_type == 'code' and any(line.strip() == '#| slow' for line in cell.source.splitlines())


def is_not_run(cell) -> bool:
    "A code cell flagged `#| eval: false` (as `nbdev_test`, we never run it)."
    return cell.cell_type == 'code' and any(
        line.replace(' ', '') == '#|eval:false' for line in cell.source.splitlines()
    )


def trim(outputs: list) -> list:
    "Drop stderr streams; keep the last `MAX_TEXT_LINES` lines of long text."
    kept = []
    for out in outputs:
        if out.get('output_type') == 'stream' and out.get('name') == 'stderr':
            continue
        if out.get('output_type') == 'stream':
            lines = ''.join(out['text']).splitlines(keepends=True)
            if len(lines) > MAX_TEXT_LINES:
                out['text'] = ['...\n'] + lines[-MAX_TEXT_LINES:]
        kept.append(out)
    return kept


def run_notebook(path: Path, slow: bool = False) -> str | None:
    "Execute `path` in its folder and store its outputs; returns an error message, or None."
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell

    nb = read_nb(path)
    shell = CaptureShell(path.parent, mpl_format='retina')  # 2x PNG, shown at 1x size: sharp on HiDPI screens
    shell.run(SETUP)
    for cell in nb.cells:
        if cell.cell_type != 'code':
            continue
        if is_slow(cell) and not slow:
            continue  # keeps the outputs of its last run
        if is_not_run(cell):
            continue
        cell['outputs'] = []  # a cell that no longer prints keeps no stale output
        shell.cell(cell)
        if shell.exc:
            return f'{path.name}: {type(shell.exc).__name__}: {shell.exc}'
        cell['outputs'] = trim(cell.get('outputs', []))
    tmp = path.with_suffix('.tmp.ipynb')
    write_nb(nb, tmp)
    tmp.replace(path)
    return None


if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('names', nargs='*', help='notebooks to run (default: all)')
    p.add_argument('--slow', action='store_true', help='also run the cells flagged #| slow')
    p.add_argument('--workers', type=int, default=2)
    a = p.parse_args()
    paths = [NBS / f'{n.removesuffix(".ipynb")}.ipynb' for n in a.names] or sorted(NBS.glob('*.ipynb'))
    missing = [str(q) for q in paths if not q.exists()]
    if missing:
        sys.exit(f'no such notebook: {", ".join(missing)}')
    with ProcessPoolExecutor(a.workers, max_tasks_per_child=1) as pool:  # a fresh kernel per notebook
        errors = [e for e in pool.map(run_notebook, paths, [a.slow] * len(paths)) if e]
    subprocess.run(['nbdev_clean'], check=True)
    for e in errors:
        print(e, file=sys.stderr)
    print(f'ran {len(paths) - len(errors)} of {len(paths)} notebooks')
    sys.exit(1 if errors else 0)
