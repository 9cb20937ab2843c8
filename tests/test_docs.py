"""The documentation site (`python tools/docs.py`, Sphinx + myst-nb, no Quarto) builds with warnings as errors from
the committed notebooks, and is readable offline: every notebook has a page, stored figures are in the pages, math is
rendered by a MathJax served from the site itself, nothing is fetched from another host, and the API reference has
every public module. (A browser test of the built pages is issue 13's next step.)"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    for names in docs.SECTIONS.values():
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
    html = (site / '11_tdu.html').read_text()
    assert '_static/mathjax/tex-chtml.js' in html
    assert 'class="math' in html                                # myst's math nodes, typeset by MathJax in the browser


def test_stored_figures_appear_in_the_pages(site):
    html = (site / '11_tdu.html').read_text()
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
