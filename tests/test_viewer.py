"""The Deep Sea viewer as people see it: the app notebook served by Voila on 127.0.0.1 and the offline
`viewer.html`, both in headless Chromium (Debian's `chromium`, driven by Playwright). We move the snapshot slider and
switch the quantity, check that the picture changes each time and that no error appears on the page or in the
console, and save screenshots to `_screenshots/`."""

import re
import sys
import subprocess
import tempfile
import time
from pathlib import Path
import pytest

from conftest import CHROMIUM, cli, free_port, need_browser, ROOT, SCREENSHOTS, stop_server, wait_for_port

EXAMPLES = sorted(str(p.parent) for p in (ROOT / 'examples' / 'runs').glob('*/snapshots.npz'))


def _watch(page, base: str) -> list:
    "Collect console errors, page errors, failed responses and requests that leave `base`."
    problems = []
    page.on('console', lambda m: problems.append(f'console {m.type}: {m.text}') if m.type == 'error' else None)
    page.on('pageerror', lambda e: problems.append(f'page error: {e}'))
    page.on('response', lambda r: problems.append(f'{r.status} {r.url}') if r.status >= 400 else None)
    page.on(
        'request',
        lambda r: (
            problems.append(f'request to {r.url}')
            if not r.url.startswith((base, 'data:', 'blob:', 'ws://127.0.0.1', 'about:'))
            else None
        ),
    )
    return problems


def test_example_runs_are_committed():
    names = [Path(p).name for p in EXAMPLES]
    assert any(n.startswith('boot_dqn') for n in names) and any(n.startswith('tdu') for n in names), names


@pytest.mark.browser
def test_viewer_in_voila():
    """`uncertain-rl app`'s Voila command (our offline template, the packaged app notebook) with the example runs
    (Bootstrapped DQN and TDU side by side): the widgets appear, moving the snapshot slider and switching the quantity
    change both pictures, no error anywhere."""
    need_browser('voila')
    from playwright.sync_api import sync_playwright
    from uncertain_rl.app.viewer import voila_command

    port, tmp = free_port(), tempfile.mkdtemp()
    argv, env = voila_command(tmp, EXAMPLES, port, open_browser=False, token='a-test-token')
    proc = subprocess.Popen(
        argv + ['--show_tracebacks=True'],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f'http://127.0.0.1:{port}'
    try:
        wait_for_port(port, seconds=60)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
            page = browser.new_page(viewport={'width': 1400, 'height': 1200})
            problems = _watch(page, base)
            page.goto(base + '/?token=a-test-token', timeout=180_000)
            images = page.locator('.widget-image')
            images.first.wait_for(timeout=180_000)
            page.wait_for_function(
                '[...document.querySelectorAll(".widget-image")].length === 2 && '
                '[...document.querySelectorAll(".widget-image")].every(i => i.naturalWidth > 0)',
                timeout=60_000,
            )
            SCREENSHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / 'voila_viewer.png'), full_page=True)

            def pictures():
                return [images.nth(i).screenshot() for i in range(2)]

            def wait_changed(before):
                "Wait until both pictures differ from `before` and have settled (the same twice in a row)."
                last = before
                for _ in range(100):
                    time.sleep(0.2)
                    now = pictures()
                    if all(a != b for a, b in zip(before, now)) and now == last:
                        return now
                    last = now
                raise AssertionError('the pictures did not change, or did not settle')

            def same_episode():
                "The status line names one episode for both runs (their snapshots are every 15 episodes)."
                episodes = re.findall(r'on deep_sea: episode (\d+)', page.inner_text('body'))
                assert len(episodes) == 2 and len(set(episodes)) == 1, episodes

            before = pictures()
            handle = page.locator('.widget-slider .noUi-handle').first  # the snapshot slider
            handle.focus()
            for _ in range(10):
                page.keyboard.press('ArrowLeft')
            before = wait_changed(before)
            same_episode()
            page.screenshot(path=str(SCREENSHOTS / 'voila_viewer_slider.png'), full_page=True)
            page.locator('.widget-dropdown', has_text='quantity').locator('select').select_option(label='visits')
            wait_changed(before)
            same_episode()
            page.screenshot(path=str(SCREENSHOTS / 'voila_viewer_visits.png'), full_page=True)
            text = page.inner_text('body')
            assert 'Traceback' not in text and 'Error' not in text, text[:2000]
            browser.close()
    finally:
        log = stop_server(proc, 20)
    assert not problems, '\n'.join(problems[:20]) + '\n' + log[-3000:]


@pytest.mark.browser
def test_train_then_viewer_html(tmp_path):
    """`DeepSeaViewer.train` (the command line's training, in-process) then `uncertain-rl view`: the viewer opens the
    new run; the page opens from disk with no network, the controls change the heat map, no error in the console."""
    from uncertain_rl.app.viewer import DeepSeaViewer

    viewer = DeepSeaViewer.train(
        'tdu',
        size=6,
        episodes=24,
        seeds=2,
        snapshots=6,
        out=tmp_path,
        progress=False,
        hidden_sizes=(16,),
        num_exploiters=3,
        num_explorers=2,
    )
    assert viewer.runs[0].num_snapshots == 7 and viewer.runs[0].seeds == [0, 1] and 'tdu_sigma' in viewer.quantities
    assert len(bytes(viewer.images[0].value)) > 1000
    r = cli('view', str(tmp_path))
    assert r.returncode == 0 and 'viewer.html' in r.stdout, r.stderr
    page_path = tmp_path / 'viewer.html'
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 1000})
        problems = _watch(page, page_path.as_uri())
        page.goto(page_path.as_uri())
        page.wait_for_function('document.body.dataset.ready === "1"')
        grid = lambda: page.evaluate('document.getElementById("grid").toDataURL()')
        labels = page.evaluate('[...document.querySelectorAll("#quantity option")].map(o => o.textContent)')
        assert 'TDU σ, right' in labels and 'visits, both' in labels, labels
        before = grid()
        page.select_option('#quantity', label='TDU σ, right')
        assert grid() != before
        before = grid()
        page.evaluate(
            '(() => { const s = document.getElementById("snapshot"); s.value = 2;'
            ' s.dispatchEvent(new Event("input")); })()'
        )
        assert grid() != before
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / 'viewer_html.png'), full_page=True)
        browser.close()
    assert not problems, problems


def test_the_page_files_are_what_they_say():
    """The viewer's page is package data, checked as what it is: the script parses (`node --check`, where Node.js is
    installed), the HTML's elements are balanced and hold the marks the renderer fills in, and the CSS's braces
    match."""
    import shutil
    from html.parser import HTMLParser
    from uncertain_rl.app.viewer import STATIC

    js, css, html = (Path(str(STATIC / f'viewer.{ext}')) for ext in ('js', 'css', 'html'))
    if shutil.which('node'):
        r = subprocess.run(['node', '--check', str(js)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    else:
        print('node not found: the script was not parsed')
    void = {'meta', 'link', 'input', 'br', 'img', 'hr'}
    stack, problems = [], []

    class Check(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag not in void:
                stack.append(tag)

        def handle_endtag(self, tag):
            if not stack or stack.pop() != tag:
                problems.append(f'unbalanced </{tag}> at line {self.getpos()[0]}')

    Check().feed(html.read_text())
    assert not problems and not stack, (problems, stack)
    text = html.read_text()
    for mark in ('/*UNCERTAIN_RL_TITLE*/', '/*UNCERTAIN_RL_CSS*/', '/*UNCERTAIN_RL_DATA*/', '/*UNCERTAIN_RL_JS*/'):
        assert text.count(mark) == 1, mark
    style = css.read_text()
    assert style.count('{') == style.count('}') > 10


def test_viewing_a_committed_example_leaves_the_checkout_clean(tmp_path):
    "`uncertain-rl view examples/runs/...` writes its page beside the run, and git does not see it."
    if not (ROOT / '.git').exists():
        import pytest

        pytest.skip('not a git checkout')
    for run in EXAMPLES:
        r = cli('view', run)
        assert r.returncode == 0, r.stderr
    status = subprocess.run(
        ['git', 'status', '--porcelain', '--', 'examples'], cwd=ROOT, capture_output=True, text=True
    )
    assert status.stdout == '', status.stdout


def test_view_and_app_answer_a_bad_directory_in_one_line(tmp_path):
    for args in (
        ['view', str(ROOT / 'README.md')],
        ['view', str(tmp_path)],
        ['app', str(ROOT / 'README.md'), '--no-browser'],
    ):
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and 'Traceback' not in r.stderr, (
            args,
            r.stderr,
        )
        assert 'is not a run directory' in r.stderr or 'no summary.json' in r.stderr, r.stderr


@pytest.mark.browser
def test_app_stops_voila_and_its_kernels_on_sigterm():
    """`uncertain-rl app` serves the app; a page request starts a kernel (Jupyter starts kernels in sessions of their
    own); SIGTERM to the command stops Voila and the kernel, leaving no process behind."""
    import signal
    import urllib.request

    need_browser('voila', 'psutil')
    import psutil

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, '-m', 'uncertain_rl', 'app', *EXAMPLES, '--port', str(port), '--no-browser'],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = proc.stdout.readline().split(' at ')[1].split()[0]  # the address, with its token
        wait_for_port(port, seconds=60)
        with urllib.request.urlopen(url, timeout=180) as page:
            page.read()
        children = psutil.Process(proc.pid).children(recursive=True)
        names = [' '.join(c.cmdline()) for c in children]
        assert any('voila' in n for n in names) and any('ipykernel' in n for n in names), names
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        gone, alive = psutil.wait_procs(children, timeout=30)
        assert not alive, [' '.join(p.cmdline()) for p in alive]
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.browser
def test_the_app_asks_for_its_token_and_refuses_other_hosts():
    """The server the app starts answers only with its token (else the login page) and only to a loopback `Host`
    (a DNS-rebinding page gets 403); the viewer escapes an error's text before showing it as HTML."""
    import urllib.error
    import urllib.request

    need_browser('voila')
    from uncertain_rl.app.viewer import voila_command, viewer_app

    port, tmp = free_port(), tempfile.mkdtemp()
    argv, env = voila_command(tmp, [], port, open_browser=False, token='t0ken')
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def get(path, host=None):
        request = urllib.request.Request(f'http://127.0.0.1:{port}{path}', headers={'Host': host} if host else {})
        try:
            with urllib.request.urlopen(request, timeout=180) as r:
                return r.status, r.geturl()
        except urllib.error.HTTPError as e:
            return e.code, ''

    try:
        wait_for_port(port, seconds=60)
        status, url = get('/')
        assert '/login' in url, (status, url)
        assert get('/?token=t0ken')[0] == 200
        assert get('/?token=t0ken', host=f'attacker.example:{port}')[0] == 403
    finally:
        proc.kill()
    app = viewer_app(['/nonexistent/<img src=x onerror=alert(1)>'])
    shown = app.children[2].value
    assert '<img' not in shown and '&lt;img' in shown, shown


def test_a_corrupt_snapshots_file_is_named_in_one_line(tmp_path):
    "A truncated snapshots.npz, or one whose metadata or shapes are wrong: `view` answers in one line (exit 2)."
    import shutil
    from uncertain_rl.rundir import load_snapshots, save_snapshots

    good = load_snapshots(EXAMPLES[0])
    cases = {
        'truncated': None,
        'meta': lambda d: d.meta.pop('action_mapping'),
        'size': lambda d: d.meta.update(size=12),
        'shape': lambda d: d.snapshots.update(q_mean=d.snapshots['q_mean'][:, :3]),
    }
    for name, damage in cases.items():
        run = tmp_path / name
        shutil.copytree(EXAMPLES[0], run)
        if damage is None:
            data = (run / 'snapshots.npz').read_bytes()
            (run / 'snapshots.npz').write_bytes(data[: len(data) // 2])
        else:
            copy = load_snapshots(EXAMPLES[0])
            damage(copy)
            save_snapshots(copy, run / 'snapshots.npz')
        r = cli('view', str(run))
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (name, r.stderr)
        assert 'snapshots.npz' in r.stderr and 'Traceback' not in r.stderr, (name, r.stderr)
    assert good.size == 10


def test_app_without_its_extra_names_the_extra(tmp_path):
    "Without Voila (a plain install), `uncertain-rl app` says in one line which extra to install, exit 2."
    blocker = tmp_path / 'sitecustomize.py'  # hide voila from this interpreter, as a plain install would
    blocker.write_text(
        'import sys\nclass _Hide:\n    def find_spec(self, name, path=None, target=None):\n'
        '        return None if name.split(".")[0] != "voila" else (_ for _ in ()).throw(ModuleNotFoundError(name))\n'
        'sys.meta_path.insert(0, _Hide())\n'
    )
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get('PYTHONPATH', '')]))
    r = subprocess.run(
        [sys.executable, '-m', 'uncertain_rl', 'app', '--no-browser'],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "pip install 'uncertain_rl[app]'" in r.stderr and 'voila' in r.stderr, r.stderr


@pytest.mark.browser
def test_the_summary_table_fits_its_card_with_a_legend(tmp_path):
    "The offline page's summary uses the command line's short column names and legend, so it fits its card at 1280 px."
    need_browser()
    import shutil
    from playwright.sync_api import sync_playwright
    from uncertain_rl.app.viewer import write_viewer_html

    shutil.copytree(EXAMPLES[1], tmp_path / 'run')
    path = write_viewer_html(tmp_path / 'run', None)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        page.goto(f'file://{path}')
        page.wait_for_selector('#summary table')
        card, table = page.evaluate(
            '[document.getElementById("summary-card"), document.querySelector("#summary table")]'
            '.map(e => e.getBoundingClientRect().right)'
        )
        legend = page.inner_text('#summary .legend')
        browser.close()
    assert table <= card, (table, card)
    assert legend.startswith('ret100: mean training return') and 'exploit100: TDU' in legend
