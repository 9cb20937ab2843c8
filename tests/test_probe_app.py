"""The viewer against a hostile run directory (issue 59): texts from a run's files reach the app's HTML only escaped,
in real headless Chromium too; a wrongly typed `summary.json`, a page or an app too large, a corrupt or incomplete
`snapshots.npz` are refused in one line (exit 2), before anything large is built and before Voila starts. Runs are
made by hand (`save_snapshots` of a `RunData`), not trained: every test here but the browser's takes seconds."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import CHROMIUM, SCREENSHOTS, free_port, need_browser, refused, stop_server, wait_for_port
from uncertain_rl.app.cli import main
from uncertain_rl.rundir import SNAPSHOTS_FILE, RunData, save_snapshots

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = '<script>window.__pwned=2</script>'
ARRAY = '<img src=x onerror="window.__pwned=3">'  # an extra per-cell array's name: its label has ' ' for '_'
AGENT = '<img src=x onerror="window.__pwned=4">'
SEED = '<img src=x onerror="window.__pwned=5">'


def hand_run(size=4, seeds=2, snapshots=3, episodes=20, extra=(), **meta) -> RunData:
    """A run made by hand: the loop's entries, visits, q_std and the per-cell arrays named in `extra`, as views of one
    number each (free at any size); `meta` overrides the header."""
    R, S, C = seeds, snapshots, size * size
    view = lambda value, *shape: np.broadcast_to(np.asarray(value), shape)
    arrays = dict(
        step=view(np.arange(S, dtype=np.int32) * 10 * size, R, S),
        episode=view(np.arange(S, dtype=np.int32) * 10, R, S),
        greedy_path=view(np.arange(size, dtype=np.int32) * (size + 1), R, S, size),
        last_path=view(np.arange(size, dtype=np.int32) * size, R, S, size),
        visits=view(np.int32(1), R, S, C, 2),
        q_std=view(np.linspace(0, 1, C * 2, dtype=np.float32).reshape(C, 2), R, S, C, 2),
        **{n: view(np.linspace(0, 1, C, dtype=np.float32), R, S, C) for n in extra},
    )
    header = dict(agent='boot_dqn', env='deep_sea', size=size, seeds=list(range(R)))
    header.update(action_mapping=np.zeros((size, size), int).tolist(), **meta)
    return RunData(arrays, view(np.float32(0.5), R, episodes), header)


def run_dir(tmp_path: Path, name: str, run: RunData, summary=None) -> Path:
    "A run directory holding `run`'s snapshots and, if given, `summary` as its summary.json (written as is)."
    d = tmp_path / name
    d.mkdir()
    save_snapshots(run, d / SNAPSHOTS_FILE)
    if summary is not None:
        (d / 'summary.json').write_text(summary if isinstance(summary, str) else json.dumps(summary))
    return d


@pytest.fixture
def no_voila(monkeypatch):
    "`uncertain-rl app` in-process, with Voila never started: starting it fails the test."
    pytest.importorskip('voila')

    def started(argv, *args, **kwargs):
        raise AssertionError(f'Voila was started: {argv[:4]}')

    monkeypatch.setattr(subprocess, 'Popen', started)


def hostile_runs() -> list:
    "Two runs whose texts are markup: the label (and a seed, and an extra array's name) of one, the agent of the other."
    a = hand_run(extra=[ARRAY], label=IMG + SCRIPT)
    a.meta['seeds'] = [SEED, 1]
    return [a, hand_run(agent=AGENT)]


def test_the_app_status_line_escapes_the_runs_texts():
    from uncertain_rl.app.viewer import DeepSeaViewer

    viewer = DeepSeaViewer(hostile_runs())
    shown = [viewer.status.value]
    viewer.quantity.value = ARRAY
    shown.append(viewer.status.value)
    for status in shown:
        assert '<img' not in status and '<script' not in status, status
        assert (
            '&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;&lt;script&gt;window.__pwned=2&lt;/script&gt;'
            in (status)
        )
        assert '&lt;img src=x onerror=&quot;window.__pwned=4&quot;&gt; on deep_sea: episode 20' in status, status
    assert shown[1].startswith('<small><b>&lt;img src=x onerror=&quot;window.  pwned=3&quot;&gt;</b>'), shown[1]


def test_titles_with_dollar_signs_draw_as_written():
    "A label, an array's name and a seed that matplotlib would read as (broken) mathtext."
    from uncertain_rl.app.viewer import DeepSeaViewer

    run = hand_run(extra=['a$\\frac$b'], label='cost $\\frac$')
    run.meta['seeds'] = ['$x^{$', 1]
    viewer = DeepSeaViewer(run, quantity='a$\\frac$b')
    assert bytes(viewer.images[0].value)[:4] == b'\x89PNG'


@pytest.mark.parametrize(
    'summary, field',
    [
        ('{"results": 5}', 'results'),
        ('{"results": "abc"}', 'results'),
        ('{"results": [5]}', 'results'),
        ('{"results": null}', 'results'),
        ('{"results": {"seed": 0}}', 'results'),
        ('{"results": [{"seed": 0, "best": [NaN]}]}', 'results'),
        ('{"results": [{"seed": 0}], "command": 5}', 'command'),
    ],
)
def test_view_refuses_a_wrongly_typed_summary_in_one_line(tmp_path, capsys, summary, field):
    d = run_dir(tmp_path, 'run', hand_run(), summary)
    err = refused(capsys, 'view', str(d))
    assert f"{str(d / 'summary.json')!r}: '{field}' must be" in err, err
    assert not (d / 'viewer.html').exists()


def test_view_still_shows_a_summary_of_the_right_types(tmp_path, capsys):
    d = run_dir(
        tmp_path, 'run', hand_run(), '{"results": [{"seed": 0, "best": NaN, "solved_at": null}], "command": "c"}'
    )
    assert main(['view', str(d)]) == 0, capsys.readouterr().err
    page = (d / 'viewer.html').read_text()
    assert '"rows":[[0,null,null]]' in page and '"notes":"c"' in page


def test_view_refuses_a_page_too_large_before_building_it(tmp_path, capsys):
    """A small file of zeros at Deep Sea 1000 (its page would be about 84 MB): refused in seconds with the estimate
    and how to fit, and no page written."""
    run = hand_run(size=1000, seeds=2, snapshots=2)
    del run.snapshots['q_std']  # visits alone: constant, so the file is small
    d = run_dir(tmp_path, 'big', run)
    assert (d / SNAPSHOTS_FILE).stat().st_size < 200_000
    start = time.perf_counter()
    err = refused(capsys, 'view', str(d))
    assert time.perf_counter() - start < 20
    assert f"{str(d / SNAPSHOTS_FILE)!r}: its page would hold" in err, err
    assert 'about 84 MB, more than the 50 MB' in err and '--snapshots' in err and '--size' in err, err
    assert not (d / 'viewer.html').exists()


def test_the_app_refuses_a_run_too_large_for_it(tmp_path, capsys, no_voila):
    """Five million episodes of zeros for each of two seeds (a 40 kB file) would be 80 MB of learning curves in the
    app: the viewer refuses it, and so does `uncertain-rl app`, before Voila starts."""
    from uncertain_rl.app.viewer import DeepSeaViewer

    d = run_dir(tmp_path, 'long', hand_run(episodes=5_000_000))
    with pytest.raises(
        ValueError, match=r'the app would gather 2 seeds x \(3 snapshots x 16 cells \+ 5000000 episodes'
    ):
        DeepSeaViewer(d)
    err = refused(capsys, 'app', str(d), '--no-browser')
    assert 'about 80 MB, more than the 50 MB' in err, err


def test_the_app_refuses_a_corrupt_snapshots_file_before_starting_voila(tmp_path, capsys, no_voila):
    d = run_dir(tmp_path, 'corrupt', hand_run())
    data = (d / SNAPSHOTS_FILE).read_bytes()
    (d / SNAPSHOTS_FILE).write_bytes(data[: len(data) // 2])
    err = refused(capsys, 'app', str(d), '--no-browser')
    assert f"{str(d / SNAPSHOTS_FILE)!r} is not a snapshots file written by uncertain_rl" in err, err


def test_a_missing_path_is_named_in_one_line(tmp_path, capsys, no_voila):
    run = hand_run()
    del run.snapshots['last_path']
    d = run_dir(tmp_path, 'no_path', run)
    for command in (['view', str(d)], ['app', str(d), '--no-browser']):
        assert "has no 'last_path' array" in refused(capsys, *command)


def test_too_many_seeds_are_refused_in_one_line(tmp_path, capsys, no_voila):
    "One menu entry and one learning curve per seed: a thousand at most."
    d = run_dir(tmp_path, 'seeds', hand_run(size=1, seeds=1001, snapshots=1, episodes=1))
    for command in (['view', str(d)], ['app', str(d), '--no-browser']):
        assert 'has 1001 seeds; the viewer shows at most 1000' in refused(capsys, *command)


@pytest.mark.browser
def test_hostile_labels_in_the_app_in_chromium(tmp_path):
    """`uncertain-rl app` (Voila) on two runs whose label, agent name, seed and an extra array's name are markup: in
    headless Chromium no element from them exists, nothing they carry ran, and the status line shows them as text."""
    need_browser('voila')
    from playwright.sync_api import sync_playwright
    from uncertain_rl.app.viewer import run_quantities

    a, b = hostile_runs()
    dirs = [run_dir(tmp_path, name, run) for name, run in (('a', a), ('b', b))]
    index = list(run_quantities(a)).index(ARRAY)  # the array's place in the quantity menu (a's quantities come first)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, '-m', 'uncertain_rl', 'app', *map(str, dirs), '--port', str(port), '--no-browser'],
        cwd=tmp_path,  # not the checkout: `-m` imports the package that PYTHONPATH names, where one is given
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = proc.stdout.readline().split(' at ')[1].split()[0]  # the address, with its token
        wait_for_port(port, seconds=60)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=['--no-sandbox'])
            page = browser.new_page(viewport={'width': 1400, 'height': 1100})
            page.goto(url, timeout=180_000)
            page.wait_for_function(
                '[...document.querySelectorAll(".widget-image")].length === 2 && '
                '[...document.querySelectorAll(".widget-image")].every(i => i.naturalWidth > 0)',
                timeout=180_000,
            )
            page.locator('.widget-dropdown', has_text='quantity').locator('select').select_option(index=index)
            page.wait_for_function(  # the status line no longer names the first quantity, std of Q
                '[...document.querySelectorAll(".widget-html")].every(e => !e.innerText.includes("std of Q"))',
                timeout=60_000,
            )
            time.sleep(2)  # time for an image that failed to load to call its onerror
            SCREENSHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / 'app_hostile_labels.png'), full_page=True)
            found = page.evaluate(
                """() => ({
                    pwned: [window.__pwned, window.pwned],
                    elements: [...document.querySelectorAll('img[onerror], script:not([type]), script[type*=script]')]
                        .filter(e => ((e.getAttribute('onerror') || '') + e.textContent).includes('pwned'))
                        .map(e => e.outerHTML),
                    status: [...document.querySelectorAll('.widget-html')].map(e => e.innerText).join('\\n'),
                    options: [...document.querySelectorAll('.widget-dropdown option')]
                        .map(o => o.textContent.replace(/\\u00a0/g, ' ')),
                })"""
            )
            browser.close()
    finally:
        log = stop_server(proc, 30)
    assert found['pwned'] == [None, None], (found, log[-2000:])
    assert found['elements'] == [], found
    status = ' '.join(found['status'].split())
    assert IMG + SCRIPT + ': episode 20' in status and AGENT + ' on deep_sea: episode 20' in status, status
    assert '<img src=x onerror="window. pwned=3">' in status, status  # the array's label ('_' as ' ')
    assert 'seed ' + SEED in found['options'] and '<img src=x onerror="window.  pwned=3">' in found['options'], found
