"""Build the documentation site into `_docs/` (nbdev's `doc_path`) from `docs/` and the notebooks, without Quarto
and without re-running them: Sphinx with `myst-nb` reads the stored outputs, the book theme lays the pages out,
MathJax is served from the site itself (no network), and Sphinx's own search index makes it searchable offline.

    python tools/docs.py            # build _docs/ (warnings are errors)
    python tools/docs.py --if-changed   # the same, unless _docs/ was built from these very inputs (the tests' way)
    python -m http.server -d _docs  # then open http://127.0.0.1:8000

`docs/` holds the site's own sources: the Sphinx configuration, pages written by hand (the architecture, the API's
introduction) and static files (CSS, favicon). This script copies them into a build folder (`_docs_src/`) beside
what is derived: the home page (README.md, its links pointed at the site's pages, then the table of contents), one
page per notebook in reading order (the methods' sections come from the agents' declarations), a page listing the
registered agents, and one API page per public module.
"""

import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, DOCS, OUT, SRC = ROOT / 'nbs', ROOT / 'docs', ROOT / '_docs', ROOT / '_docs_src'

FOUNDATIONS = {  # caption -> notebooks, in reading order; the methods' sections come from the agents' declarations
    'Building blocks': [
        '00_checks',
        '00a_testing',
        '01_base',
        '02_ensembles',
        '03_replay',
        '04_learning',
        '05_acting',
        '06_loops',
        '06a_runtime',
        '06b_checkpoints',
        '07_agents.ensemble_q',
    ],
    'Environments': [
        '09_envs.core',
        '10_envs.deep_sea',
        '11_envs.bsuite',
        '12_envs.binary_tree',
        '13_envs.chain',
        '14_envs.cartpole',
        '15_envs.noise',
        '16_envs.rewards',
        '17_envs.bandit',
        '18_envs.catch',
        '19_envs.chains',
        '19c_envs.mountain_car',
        '19d_envs.cartpole_swingup',
        '19e_envs.mnist',
        '64_subleq',
        '65_minatar',
    ],
}
APPLICATIONS = {
    'Experiments': [
        '80_metrics',
        '81_registry',
        '82_rundir',
        '82a_spec',
        '82b_tracking',
        '83_experiments',
        '84_suites.stats',
        '85_suites.core',
        '86_suites.deep_sea',
        '87_suites.cartpole_noise',
        '87a_suites.bsuite',
        '87b_suites.subleq',
        '87c_suites.minatar',
        '88a_suites.fingerprints',
        '88_suites.store',
        '88c_suites.leases',
        '88b_suites.cluster',
        '89a_suites.verdicts',
        '89_suites.report',
        '97_results',
    ],
    'The viewer and the command line': [
        '90_app.viewer',
        '90a_app.args',
        '91_app.cli',
        '91a_app.suite_commands',
        '92_app.main',
        '98_api',
    ],
}
# The reference pages: written in docs/ (architecture, api) or derived from the registry (agents, environments).
REFERENCE = ['architecture', 'agents', 'environments', 'api']
PREVIEW_RUN = ROOT / 'examples' / 'runs' / 'tdu-deep_sea10'  # its offline viewer page is the site's static preview


def sections() -> dict:
    "Every section of the site: the foundations, one per method (from the registry), the experiments, the app."
    from uncertain_rl.registry import docs_sections

    methods = {s.caption: [n for n in s.notebooks if (NBS / f'{n}.ipynb').exists()] for s in docs_sections()}
    return {**FOUNDATIONS, **{k: v for k, v in methods.items() if v}, **APPLICATIONS}


def public_modules() -> list[str]:
    "Every module of the package that declares `__all__`, in file order."
    mods = []
    for path in sorted((ROOT / 'uncertain_rl').rglob('*.py')):
        if path.name.startswith('_') and path.name != '__init__.py':
            continue
        if '__all__' not in path.read_text():
            continue
        rel = path.relative_to(ROOT).with_suffix('')
        mods.append('.'.join(rel.parts[:-1] if rel.name == '__init__' else rel.parts))
    return [m for m in mods if m not in ('uncertain_rl', 'uncertain_rl.__main__')]  # the flat API repeats the modules


def _only_imports(lines: list) -> bool:
    code = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith('#')]
    joined = ' '.join(code)
    return (
        bool(code)
        and all(re.match(r'(import |from \S+ import |\)|[\w, ]+\)?$)', ln) for ln in code)
        and ('import' in joined)
    )


def for_readers(path: Path) -> dict:
    """A notebook as a reader sees it: `#| hide` and `#| default_exp` cells, and code cells that only import (with
    no output), left out; `#| echo: false` cells show their output only; `#| ` directive lines removed."""
    nb = json.loads(path.read_text())
    cells = []
    for cell in nb['cells']:
        lines = ''.join(cell['source']).splitlines(keepends=True)
        directives = [ln.strip() for ln in lines if ln.startswith('#|')]
        code = [ln for ln in lines if not ln.startswith('#|')]
        if cell['cell_type'] == 'code':
            if any(d.split()[1:2] in (['hide'], ['default_exp']) for d in directives):
                continue
            if not cell.get('outputs') and _only_imports(code):
                continue
            if any(d.replace(' ', '') == '#|echo:false' for d in directives):  # the output without its code
                cell.setdefault('metadata', {})['tags'] = [*cell['metadata'].get('tags', []), 'remove-input']
        cell['source'] = code
        cells.append(cell)
    return {**nb, 'cells': cells}


def home_page() -> str:
    "README.md as the site's home: links to notebooks and figures pointed at the site's pages."
    text = (ROOT / 'README.md').read_text()
    text = re.sub(r'\]\(nbs/([^)]+?)\.ipynb\)', r'](\1.ipynb)', text)
    text = re.sub(r'\]\(nbs/figures/', '](figures/', text)
    text = re.sub(r'src="nbs/figures/', 'src="figures/', text)
    text = re.sub(r'\]\(docs/([^)]+?)\.md\)', r'](\1.md)', text)
    return re.sub(
        r'\]\((?!https?:|#|figures/)([^)]+?/[^)]*)\)',
        r'](https://github.com/uncertain-rl/uncertain_rl/blob/main/\1)',
        text,
    )  # other files of the repository: on GitHub


def agents_page() -> str:
    "Every registered agent: description, options with their defaults, presets, signals, documentation section."
    from uncertain_rl.registry import catalog, restricted_to

    lines = [
        '# Agents',
        '',
        'Every registered agent, as the registry knows it (ours, those of installed packages through '
        'the entry-point group `uncertain_rl.agents`, and those registered at run time). '
        '`uncertain-rl agents` prints the same.',
        '',
    ]
    for a in catalog()['agents']:
        kind = 'box actions' if a['continuous'] else 'discrete actions'
        only = restricted_to(a['name'])
        where = f"; runs on {', '.join(only)} only" if only else ''
        docs = f" Documented in *{a['docs']['caption']}*." if a['docs'] else ''
        lines += [f"## `{a['name']}`", '', f"{a['description']} ({kind}{where}; module `{a['module']}`).{docs}", '']
        if a['options']:
            lines += ['| option | default | what |', '|---|---|---|']
            lines += [
                f"| `--{n.replace('_', '-')}` | `{o['default']!r}` | {o['help']} |" for n, o in a['options'].items()
            ]
            lines.append('')
        for p in a['presets']:
            on = f" (by default on {', '.join(p['envs'])})" if p['envs'] else ''
            lines.append(f"- preset `{p['name']}`{on}: {p['description']}")
        if a['signals']:
            lines.append(f"- viewer signals: {', '.join(s['label'] for s in a['signals'])}")
        lines.append('')
    return '\n'.join(lines)


def environments_page() -> str:
    "Every registered environment: description, what it declares, horizon, preset, and the notebook that documents it."
    from uncertain_rl.registry import env_catalog

    lines = [
        '# Environments',
        '',
        'Every registered environment, as the registry knows it (ours, declared by the '
        'environment modules; those of installed packages through the entry-point group `uncertain_rl.envs`; and '
        'those registered at run time). `uncertain-rl envs` prints the same; `bsuite:ID` runs any of bsuite\'s own.',
        'Each name links to the notebook that documents it (a plugin\'s: its module).',
        '',
        '| environment | what | actions | horizon | preset | declares |',
        '|---|---|---|---|---|---|',
    ]
    for e in env_catalog():
        name = f"[`{e['name']}`]({e['notebook']}.ipynb)" if e['notebook'] else f"`{e['name']}` (module `{e['module']}`)"
        lines.append(
            f"| {name} | {e['description']} | {'box' if e['continuous'] else 'discrete'} | "
            f"{e['horizon'] or ''} | {e['preset'] or ''} | {', '.join(e['declares']).replace('_', ' ')} |"
        )
    return '\n'.join(lines) + '\n'


def toctree(caption: str, names: list) -> str:
    return f'\n```{{toctree}}\n:caption: {caption}\n:maxdepth: 1\n\n' + '\n'.join(names) + '\n```\n'


def write_sources(src: Path = SRC) -> None:
    "The Sphinx source folder `src`: docs/, the home page with the table of contents, notebooks, agents and API pages."
    SRC = Path(src)
    if SRC.exists():
        shutil.rmtree(SRC)
    shutil.copytree(DOCS, SRC)
    shutil.copytree(NBS / 'figures', SRC / 'figures')
    (SRC / '_extra').mkdir(exist_ok=True)
    from uncertain_rl.app.viewer import write_viewer_html

    write_viewer_html(PREVIEW_RUN, SRC / '_extra' / 'viewer_preview.html')
    listed = [n for names in sections().values() for n in names]
    missing = sorted({p.stem for p in NBS.glob('*.ipynb')} - set(listed) - {'index'})
    if missing:
        sys.exit(
            f"notebooks in no section of the site (tools/docs.py, or an agent's DocsSection): {', '.join(missing)}"
        )
    for name in listed:
        (SRC / f'{name}.ipynb').write_text(json.dumps(for_readers(NBS / f'{name}.ipynb')))
    toc = ''.join(toctree(caption, names) for caption, names in sections().items()) + toctree('Reference', REFERENCE)
    (SRC / 'index.md').write_text(home_page() + '\n' + toc)
    (SRC / 'agents.md').write_text(agents_page())
    (SRC / 'environments.md').write_text(environments_page())
    (SRC / 'api').mkdir(exist_ok=True)
    for mod in public_modules():
        (SRC / 'api' / f'{mod}.md').write_text(f'# `{mod}`\n\n```{{eval-rst}}\n.. automodule:: {mod}\n```\n')
    (SRC / 'api.md').write_text(
        (DOCS / 'api.md').read_text() + toctree('Modules', [f'api/{m}' for m in public_modules()])
    )


BUILT_FROM = OUT / '.built_from'  # the hash of the inputs of the last build that succeeded
INPUTS = ('README.md', 'docs', 'nbs', 'uncertain_rl', 'tools/docs.py', str(PREVIEW_RUN.relative_to(ROOT)))
NOT_INPUTS = {'__pycache__', '.ipynb_checkpoints', 'viewer.html'}  # caches, and the viewer's page of a run (not read)
BUILDERS = ('sphinx', 'myst-nb', 'sphinx-book-theme', 'pydata-sphinx-theme', 'nbformat')


def inputs_hash(root: Path = ROOT) -> str:
    """A hash of everything the site is built from: the files under `INPUTS` (names and bytes; caches and the
    viewer page `uncertain-rl view` writes into a run's folder left out) and the versions of the packages that build
    it."""
    h = hashlib.sha256()
    for name in INPUTS:
        top = Path(root) / name
        for f in sorted([top] if top.is_file() else top.rglob('*')):
            if f.is_file() and not set(f.parts) & NOT_INPUTS:
                h.update(f'{f.relative_to(root)}\0'.encode() + f.read_bytes() + b'\0')
    for package in BUILDERS:
        h.update(f'{package}=={importlib.metadata.version(package)}\0'.encode())
    return h.hexdigest()


def build(if_changed: bool = False) -> float | None:
    """Build the site into `_docs/`; warnings are errors. Returns the build time in seconds, or None where `if_changed`
    and `_docs/` was built from the same inputs (`inputs_hash`) already."""
    start = time.perf_counter()
    built_from = inputs_hash()
    if if_changed and BUILT_FROM.is_file() and BUILT_FROM.read_text() == built_from:
        return None
    write_sources()
    if OUT.exists():
        shutil.rmtree(OUT)
    r = subprocess.run([sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q', '-b', 'html', str(SRC), str(OUT)])
    shutil.rmtree(ROOT / 'jupyter_execute', ignore_errors=True)  # myst-nb's scratch copy, beside the output folder
    if r.returncode:
        sys.exit(r.returncode)
    (OUT / '.nojekyll').write_text('')  # GitHub Pages: serve _static/ as it is
    BUILT_FROM.write_text(built_from)  # last: an interrupted build leaves no stamp
    return time.perf_counter() - start


if __name__ == '__main__':
    if sys.argv[1:] not in ([], ['--if-changed']):
        sys.exit(f'usage: python tools/docs.py [--if-changed] (got {" ".join(sys.argv[1:])})')
    seconds = build(if_changed=sys.argv[1:] == ['--if-changed'])
    print(f'{OUT} already built from these inputs' if seconds is None else f'built {OUT} in {seconds:.0f} s')
