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

from conftest import CHROMIUM, SCREENSHOTS, need_browser, free_port, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tools'))
import docs  # noqa: E402


@pytest.fixture(scope='module')
def site():
    r = subprocess.run([sys.executable, str(ROOT / 'tools' / 'docs.py')], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return docs.OUT


def test_every_notebook_has_a_page_in_the_table_of_contents(site):
    home = (site / 'index.html').read_text()
    for names in docs.sections().values():
        for name in names:
            assert (site / f'{name}.html').exists(), name
            assert f'href="{name}.html"' in home, f'{name} is not linked from the home page'


def test_pages_are_self_contained(site):
    for page in site.glob('*.html'):
        html = page.read_text()
        assert '#| export' not in html and '#| hide' not in html, f'{page.name} shows nbdev directives'
        external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not external, (page.name, external)
        for src in re.findall(r'<img[^>]+src="([^"]+)"', html):
            if not src.startswith('data:'): assert (site / src).exists(), (page.name, src)


def test_math_is_rendered_by_a_local_mathjax(site):
    assert (site / '_static' / 'mathjax' / 'tex-chtml.js').exists()
    html = (site / '30_tdu.html').read_text()
    assert '_static/mathjax/tex-chtml.js' in html
    assert 'class="math' in html                                # myst's math nodes, typeset by MathJax in the browser


def test_stored_figures_appear_in_the_pages(site):
    html = (site / '30_tdu.html').read_text()
    assert re.search(r'<img[^>]+src="(_images/[^"]+\.png|data:image/png)', html), 'the in-one-picture figure is missing'


def test_api_reference_documents_every_public_module(site):
    html = (site / 'api.html').read_text()
    for mod in docs.public_modules():
        assert f'id="module-{mod}"' in html, mod
    assert 'id="uncertain_rl.agents.tdu.make_tdu"' in html and 'id="uncertain_rl.learning.member_losses"' in html


def test_readme_links_to_the_published_site():
    from configparser import ConfigParser
    cfg = ConfigParser(); cfg.read(ROOT / 'settings.ini')
    url = cfg['DEFAULT']['doc_host'] + cfg['DEFAULT']['doc_baseurl']
    assert url in (ROOT / 'README.md').read_text(), url
    workflow = (ROOT / '.github' / 'workflows' / 'docs.yml').read_text()
    assert 'python tools/docs.py' in workflow and 'path: _docs' in workflow


TEX_LEFT = ('$$', '\\(', '\\begin{')


def serve(folder: Path):
    "A static server for `folder` on 127.0.0.1 (a free port); returns (process, base URL)."
    port = free_port()
    proc = subprocess.Popen([sys.executable, '-m', 'http.server', str(port), '-b', '127.0.0.1', '-d', str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port, seconds=5)
    return proc, f'http://127.0.0.1:{port}'


def test_every_page_reads_well_in_a_real_browser(site):
    """Every page in headless Chromium: no console error, no request leaving 127.0.0.1, every image loaded, no raw TeX
    left in the text, typeset formulas on every page whose notebook has math, no broken internal link, and a search
    that finds pages. Screenshots of
    the home page and of the TDU page go to `_screenshots/`."""
    need_browser()
    from playwright.sync_api import sync_playwright
    with_math = {p.stem for p in (ROOT / 'nbs').glob('*.ipynb')
                 if any(c['cell_type'] == 'markdown' and '$' in ''.join(c['source'])
                        for c in json.loads(p.read_text())['cells'])}
    proc, base = serve(site)
    problems = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
            page = browser.new_page(viewport={'width': 1280, 'height': 900})
            current = {}
            page.on('console', lambda m: problems.append(f"{current['page']}: console {m.text}")
                    if m.type == 'error' else None)
            page.on('request', lambda r: problems.append(f"{current['page']}: request to {r.url}")
                    if not r.url.startswith((base, 'data:', 'blob:')) else None)
            page.on('response', lambda r: problems.append(f"{current['page']}: {r.status} {r.url}")
                    if r.status >= 400 else None)
            for html in sorted(site.glob('*.html')):
                current['page'] = html.name
                page.goto(f'{base}/{html.name}'); page.wait_for_load_state('networkidle')
                if page.evaluate('!!window.MathJax'):
                    page.evaluate('MathJax.startup.promise')
                broken = page.evaluate('[...document.images].filter(i => !i.complete || i.naturalWidth === 0)'
                                       '.map(i => i.src)')
                problems += [f'{html.name}: image not loaded {src}' for src in broken]
                text = page.evaluate('(() => { const a = document.querySelector("article") || document.body;'
                                     ' const c = a.cloneNode(true); c.querySelectorAll("pre, code, script, style")'
                                     '.forEach(e => e.remove()); return c.innerText; })()')
                problems += [f'{html.name}: raw TeX {t!r} in the text' for t in TEX_LEFT if t in text]
                if html.stem in with_math and page.locator('mjx-container').count() == 0:
                    problems.append(f'{html.name}: its notebook has math but no formula was typeset')
                for href in page.evaluate('[...document.querySelectorAll("a[href]")].map(a => a.href)'):
                    if href.startswith(base):
                        target = site / href[len(base) + 1:].split('#')[0].split('?')[0]
                        if not (target.is_file() or (target / 'index.html').is_file()):
                            problems.append(f'{html.name}: broken link {href}')
                if html.stem in ('index', '30_tdu'):
                    SCREENSHOTS.mkdir(exist_ok=True)
                    page.screenshot(path=str(SCREENSHOTS / f'{html.stem}.png'), full_page=False)
            current['page'] = 'search.html'                                 # the search box works offline
            page.goto(f'{base}/search.html?q=bootstrap'); page.wait_for_load_state('networkidle')
            page.wait_for_selector('#search-results li, ul.search li', timeout=10_000)
            browser.close()
    finally:
        proc.terminate()
    assert not problems, '\n'.join(problems[:40])
