"""Build the documentation site into `_docs/` (nbdev's `doc_path`) from the notebooks, without Quarto and without
re-running them: Sphinx with `myst-nb` reads the stored outputs, the book theme lays the pages out, MathJax is served
from the site itself (no network), and Sphinx's own search index makes it searchable offline.

    python tools/docs.py            # build _docs/ (warnings are errors)
    python -m http.server -d _docs  # then open http://127.0.0.1:8000

The home page is README.md; then one page per notebook in the order of the concepts; then an API reference generated
from the docstrings of every public name (each module's `__all__`).
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, OUT, SRC = ROOT / 'nbs', ROOT / '_docs', ROOT / '_docs_src'

FOUNDATIONS = {   # caption -> notebooks, in reading order; the methods' sections come from the agents' declarations
    'Building blocks': ['00_checks', '01_base', '02_ensembles', '03_replay', '04_learning', '05_acting', '06_loops',
                        '07_agents.ensemble_q'],
    'Environments': ['10_envs.deep_sea', '11_envs.bsuite', '12_envs.binary_tree', '13_envs.chain', '14_envs.cartpole',
                     '15_envs.noise'],
}
APPLICATIONS = {
    'Experiments': ['80_metrics', '81_registry', '82_rundir', '83_experiments'],
    'The viewer and the command line': ['90_app.viewer', '91_app.cli', '92_app.main', '98_api'],
}


def sections() -> dict:
    "Every section of the site: the foundations, one per method (derived from the registry), the experiments, the app."
    from uncertain_rl.registry import docs_sections
    return {**FOUNDATIONS, **{s.caption: list(s.notebooks) for s in docs_sections()}, **APPLICATIONS}


PREVIEW_RUN = ROOT / 'examples' / 'runs' / 'tdu-deep_sea10'   # its offline viewer page is the site's static preview

CONF = '''
project = "uncertain_rl"
author = "uncertain_rl developers"
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx-mathjax-offline"]
nb_execution_mode = "off"                   # the notebooks are committed with their outputs
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]         # notebooks put their title in the first cell, sections may skip a level
html_theme = "sphinx_book_theme"
html_title = "uncertain_rl"
html_theme_options = {"repository_url": "https://github.com/uncertain-rl/uncertain_rl", "use_repository_button": True,
                      "show_toc_level": 2}
html_context = {"default_mode": "light"}    # the theme's light/dark switch starts from light
html_favicon = "favicon.svg"
html_extra_path = ["_extra"]                # viewer_preview.html, the offline Deep Sea viewer of an example run
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
exclude_patterns = ["_build"]
'''

FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
           'fill="#1f4e79"/><path d="M3 4 L8 12 L13 4" stroke="#fff" stroke-width="2" fill="none"/></svg>')


def public_modules() -> list[str]:
    "Every module of the package that declares `__all__`, in file order."
    mods = []
    for path in sorted((ROOT / 'uncertain_rl').rglob('*.py')):
        if path.name.startswith('_') and path.name != '__init__.py': continue
        if '__all__' not in path.read_text(): continue
        rel = path.relative_to(ROOT).with_suffix('')
        mods.append('.'.join(rel.parts[:-1] if rel.name == '__init__' else rel.parts))
    return [m for m in mods if m != 'uncertain_rl']          # the flat API repeats the modules' names


def for_readers(path: Path) -> dict:
    "A notebook as nbdev shows it: `#| hide` and `#| default_exp` cells left out, `#| ` directive lines removed."
    nb = json.loads(path.read_text())
    cells = []
    for cell in nb['cells']:
        lines = ''.join(cell['source']).splitlines(keepends=True)
        directives = [ln.strip() for ln in lines if ln.startswith('#|')]
        if cell['cell_type'] == 'code' and any(d.split()[1:2] in (['hide'], ['default_exp']) for d in directives):
            continue
        cell['source'] = [ln for ln in lines if not ln.startswith('#|')]
        cells.append(cell)
    return {**nb, 'cells': cells}


def write_sources() -> None:
    "The Sphinx source folder: conf.py, the README as home page with the table of contents, notebooks, API pages."
    if SRC.exists(): shutil.rmtree(SRC)
    SRC.mkdir()
    (SRC / 'conf.py').write_text(CONF)
    (SRC / 'favicon.svg').write_text(FAVICON)
    shutil.copytree(NBS / 'figures', SRC / 'figures')
    (SRC / '_extra').mkdir()
    from uncertain_rl.app.viewer import write_viewer_html
    write_viewer_html(PREVIEW_RUN, SRC / '_extra' / 'viewer_preview.html')
    listed = [n for names in sections().values() for n in names]
    missing = sorted({p.stem for p in NBS.glob('*.ipynb')} - set(listed) - {'index'})
    if missing: sys.exit(f'notebooks in no section of the site (tools/docs.py, or an agent\'s DocsSection): {", ".join(missing)}')
    for name in listed: (SRC / f'{name}.ipynb').write_text(json.dumps(for_readers(NBS / f'{name}.ipynb')))
    toc = ''.join(f'\n```{{toctree}}\n:caption: {caption}\n:maxdepth: 1\n\n' + '\n'.join(names) + '\n```\n'
                  for caption, names in sections().items())
    toc += '\n```{toctree}\n:caption: Reference\n:maxdepth: 1\n\napi\n```\n'
    readme = (ROOT / 'README.md').read_text()
    (SRC / 'index.md').write_text(readme + '\n' + toc)
    api = ['# API reference', '', 'Every public name of the package, from its docstring, module by module.', '']
    for mod in public_modules():
        api += [f'## `{mod}`', '', '```{eval-rst}', f'.. automodule:: {mod}', '```', '']
    (SRC / 'api.md').write_text('\n'.join(api))


def build() -> float:
    "Build the site into `_docs/`; warnings are errors. Returns the build time in seconds."
    start = time.perf_counter()
    write_sources()
    if OUT.exists(): shutil.rmtree(OUT)
    r = subprocess.run([sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q', '-b', 'html', str(SRC), str(OUT)])
    shutil.rmtree(ROOT / 'jupyter_execute', ignore_errors=True)   # myst-nb's scratch copy, beside the output folder
    if r.returncode: sys.exit(r.returncode)
    (OUT / '.nojekyll').write_text('')                     # GitHub Pages: serve _static/ as it is
    return time.perf_counter() - start


if __name__ == '__main__':
    seconds = build()
    print(f'built {OUT} in {seconds:.0f} s')
