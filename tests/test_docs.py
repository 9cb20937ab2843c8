"""The documentation site (`python tools/docs.py`, Sphinx + myst-nb, no Quarto) builds with warnings as errors from
the committed notebooks, and is readable offline: every notebook has a page, stored figures are in the pages, math is
rendered by a MathJax served from the site itself, nothing is fetched from another host, and the API reference has
every public module; and every page reads well in headless Chromium (the last test)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHROMIUM, free_port, need_browser, ROOT, SCREENSHOTS, wait_for_port

sys.path.insert(0, str(ROOT / 'tools'))
import docs  # noqa: E402


@pytest.fixture(scope='module')
def site():
    "The site, built unless `_docs/` was built from these very inputs (CI's second pytest run reuses the first's)."
    r = subprocess.run(
        [sys.executable, str(ROOT / 'tools' / 'docs.py'), '--if-changed'], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return docs.OUT


def test_a_site_is_reused_only_when_built_from_the_same_inputs(tmp_path):
    """`--if-changed`'s hash moves with any byte of any input file and with a new file, not with caches or a run's
    viewer page."""
    for name in docs.INPUTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(('.md', '.py')):
            (tmp_path / name).write_text('x')
        else:
            (tmp_path / name).mkdir()
            (tmp_path / name / 'a.txt').write_text('a')
    first = docs.inputs_hash(tmp_path)
    (tmp_path / 'nbs' / '__pycache__').mkdir()
    (tmp_path / 'nbs' / '__pycache__' / 'm.pyc').write_bytes(b'\0')
    (tmp_path / 'nbs' / 'viewer.html').write_text('a run viewed')  # as `uncertain-rl view` leaves in a run's folder
    assert docs.inputs_hash(tmp_path) == first
    (tmp_path / 'nbs' / 'a.txt').write_text('b')
    assert docs.inputs_hash(tmp_path) != first
    (tmp_path / 'nbs' / 'a.txt').write_text('a')
    assert docs.inputs_hash(tmp_path) == first
    (tmp_path / 'docs' / 'new.md').write_text('')
    assert docs.inputs_hash(tmp_path) != first


@pytest.mark.long
def test_every_notebook_has_a_page_in_the_table_of_contents(site):
    home = (site / 'index.html').read_text()
    for names in docs.sections().values():
        for name in names:
            assert (site / f'{name}.html').exists(), name
            assert f'href="{name}.html"' in home, f'{name} is not linked from the home page'


@pytest.mark.long
def test_pages_are_self_contained(site):
    for page in site.glob('*.html'):
        html = page.read_text()
        assert '#| export' not in html and '#| hide' not in html, f'{page.name} shows nbdev directives'
        external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not external, (page.name, external)
        for src in re.findall(r'<img[^>]+src="([^"]+)"', html):
            if not src.startswith('data:'):
                assert (site / src).exists(), (page.name, src)


def test_math_is_rendered_by_a_local_mathjax(site):
    assert (site / '_static' / 'mathjax' / 'tex-chtml.js').exists()
    html = (site / '30_tdu.html').read_text()
    assert '_static/mathjax/tex-chtml.js' in html
    assert 'class="math' in html  # myst's math nodes, typeset by MathJax in the browser


def test_stored_figures_appear_in_the_pages(site):
    html = (site / '30_tdu.html').read_text()
    assert re.search(r'<img[^>]+src="(_images/[^"]+\.png|data:image/png)', html), 'the in-one-picture figure is missing'


def test_api_reference_has_a_page_per_public_module(site):
    index = (site / 'api.html').read_text()
    for mod in docs.public_modules():
        page = site / 'api' / f'{mod}.html'
        assert page.exists() and f'id="module-{mod}"' in page.read_text(), mod
        assert f'href="api/{mod}.html"' in index, mod
    assert 'id="uncertain_rl.agents.tdu.make_tdu"' in (site / 'api' / 'uncertain_rl.agents.tdu.html').read_text()
    assert 'id="uncertain_rl.experiments.run"' in (site / 'api' / 'uncertain_rl.experiments.html').read_text()


def test_home_agents_and_architecture_pages(site):
    home = (site / 'index.html').read_text()
    assert re.search(r'<img[^>]+src="_images/deep_sea_uncertainty[^"]*\.png"', home), 'the home page has no figure'
    agents = (site / 'agents.html').read_text()
    from uncertain_rl.registry import AGENTS

    for name in AGENTS:
        assert f'id="{name.replace("_", "-")}"' in agents, name
    assert 'One preset mechanism' in (site / 'architecture.html').read_text()


def test_import_boilerplate_is_hidden(site):
    html = (site / '06_loops.html').read_text()
    assert 'from jax.sharding import Mesh' not in html  # the module's import cell
    assert '>train</span>' in html and '>LoopCarry</span>' in html  # its code is there


def test_readme_links_to_the_published_site():
    from configparser import ConfigParser

    cfg = ConfigParser()
    cfg.read(ROOT / 'settings.ini')
    url = cfg['DEFAULT']['doc_host'] + cfg['DEFAULT']['doc_baseurl']
    assert url in (ROOT / 'README.md').read_text(), url
    workflow = (ROOT / '.github' / 'workflows' / 'docs.yml').read_text()
    assert 'python tools/docs.py' in workflow and 'path: _docs' in workflow


TEX_LEFT = ('$$', '\\(', '\\begin{')


def serve(folder: Path):
    "A static server for `folder` on 127.0.0.1 (a free port); returns (process, base URL)."
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, '-m', 'http.server', str(port), '-b', '127.0.0.1', '-d', str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, seconds=5)
    return proc, f'http://127.0.0.1:{port}'


@pytest.mark.browser
def test_every_page_reads_well_in_a_real_browser(site):
    """Every page in headless Chromium: no console error, no request leaving 127.0.0.1, every image loaded, no raw TeX
    left in the text, typeset formulas on every page whose notebook has math, no element wider than its column unless
    it scrolls inside it (wide equations, code and tables), one search box, no broken internal link, and a search that
    finds pages. Screenshots of the home page, the TDU page, the architecture and an API page go to `_screenshots/`."""
    need_browser()
    from playwright.sync_api import sync_playwright

    overflow = """(() => {
      const art = document.querySelector('article') || document.querySelector('main');
      const col = art.getBoundingClientRect(), out = [];
      for (const el of art.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= col.right + 1) continue;
        let scrolls = false;                       // inside a box that scrolls and itself fits the column
        for (let a = el.parentElement; a && a !== art; a = a.parentElement) {
          const ox = getComputedStyle(a).overflowX;
          if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= col.right + 1) {
            scrolls = true; break;
          }
        }
        if (!scrolls) out.push(`${el.tagName.toLowerCase()}.${el.className} by ${Math.round(r.right - col.right)} px`);
      }
      return out.slice(0, 3);
    })()"""
    searches = (
        '[...document.querySelectorAll("input[type=search], .search-button-field")]'
        '.filter(e => e.offsetParent !== null).length'
    )
    with_math = {
        p.stem
        for p in (ROOT / 'nbs').glob('*.ipynb')
        if any(
            c['cell_type'] == 'markdown' and '$' in re.sub(r'`[^`]*`', '', ''.join(c['source']))  # not code
            for c in json.loads(p.read_text())['cells']
        )
    }
    proc, base = serve(site)
    problems = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
            page = browser.new_page(viewport={'width': 1280, 'height': 900}, device_scale_factor=2)  # a HiDPI screen
            current = {}
            page.on(
                'console',
                lambda m: problems.append(f"{current['page']}: console {m.text}") if m.type == 'error' else None,
            )
            page.on(
                'request',
                lambda r: (
                    problems.append(f"{current['page']}: request to {r.url}")
                    if not r.url.startswith((base, 'data:', 'blob:'))
                    else None
                ),
            )
            page.on(
                'response',
                lambda r: problems.append(f"{current['page']}: {r.status} {r.url}") if r.status >= 400 else None,
            )
            for html in sorted([*site.glob('*.html'), *site.glob('api/*.html')]):
                current['page'] = str(html.relative_to(site))
                # goto waits for the page's load event (every image, script and style sheet in), not for network
                # idle, which costs half a second a page: a later request still meets the listeners above, and the
                # search page below waits for network idle
                page.goto(f'{base}/{current["page"]}')
                if page.evaluate('!!window.MathJax'):
                    page.evaluate('MathJax.startup.promise')
                broken = page.evaluate(
                    '[...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)'
                )
                problems += [f'{html.name}: image not loaded {src}' for src in broken]
                text = page.evaluate(
                    '(() => { const a = document.querySelector("article") || document.body;'
                    ' const c = a.cloneNode(true); c.querySelectorAll("pre, code, script, style")'
                    '.forEach(e => e.remove()); return c.innerText; })()'
                )
                problems += [f'{html.name}: raw TeX {t!r} in the text' for t in TEX_LEFT if t in text]
                if html.stem in with_math and page.locator('mjx-container').count() == 0:
                    problems.append(f'{html.name}: its notebook has math but no formula was typeset')
                problems += [f'{html.name}: {e} over its column, not scrolling' for e in page.evaluate(overflow)]
                if (
                    page.locator('.bd-sidebar-primary').count()
                    and html.stem != 'search'
                    and page.evaluate(searches) != 1
                ):
                    problems.append(f'{html.name}: {page.evaluate(searches)} search boxes')  # the theme's pages
                for href in page.evaluate('[...document.querySelectorAll("a[href]")].map(a => a.href)'):
                    if href.startswith(base):
                        target = site / href[len(base) + 1 :].split('#')[0].split('?')[0]
                        if not (target.is_file() or (target / 'index.html').is_file()):
                            problems.append(f'{html.name}: broken link {href}')
                if html.stem in ('index', '30_tdu', 'architecture', 'uncertain_rl.experiments'):
                    SCREENSHOTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(SCREENSHOTS / f'{html.stem}.png'), full_page=False)
            current['page'] = 'search.html'  # the search box works offline
            page.goto(f'{base}/search.html?q=bootstrap')
            page.wait_for_load_state('networkidle')
            page.wait_for_selector('#search-results li, ul.search li', timeout=10_000)
            browser.close()
    finally:
        proc.terminate()
    assert not problems, '\n'.join(problems[:40])
