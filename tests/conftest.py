"""Helpers shared by the tests: the command line as a user runs it, and training runs built from the registry with
the seeds the command line uses (run i has key PRNGKey(first_seed + i)), every seed in one vmapped compiled call."""

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uncertain_rl.base import gymnax_spec
from uncertain_rl import runtime

runtime.setup()  # as `experiments.run` and the command line do: every test sees the same devices, whatever runs first
from uncertain_rl.experiments import Experiment, run  # noqa: E402 (after runtime.setup)
from uncertain_rl.registry import make_agent, make_env  # noqa: E402


def cli(*args, timeout: int = 600) -> subprocess.CompletedProcess:
    "Run the installed `uncertain-rl` console script with `args`."
    return subprocess.run(['uncertain-rl', *args], capture_output=True, text=True, timeout=timeout)


CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
BROWSER_REQUIRED = os.environ.get('UNCERTAIN_RL_BROWSER_TESTS') == 'required'  # set by .ci/run
ROOT = Path(__file__).resolve().parent.parent  # the checkout's root
SCREENSHOTS = ROOT / '_screenshots'


def need_browser(*modules) -> None:
    "Skip (fail, where CI requires the browser tests) unless Debian's chromium, Playwright and `modules` are here."
    missing = [m for m in ('playwright', *modules) if not importlib.util.find_spec(m)]
    if not CHROMIUM or missing:
        why = (
            f"Debian's chromium and the Python packages {['playwright', *modules]} are needed "
            f"(missing: {missing or 'chromium'}; apt-get install chromium)"
        )
        if BROWSER_REQUIRED:
            pytest.fail(why)
        print(f'SKIPPED browser test: {why}')
        pytest.skip(why)


def free_port() -> int:
    "A free TCP port on 127.0.0.1."
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float = 10.0) -> None:
    "Wait until something listens on 127.0.0.1:`port` (at most `seconds`)."
    for _ in range(int(seconds / 0.2)):
        try:
            with socket.create_connection(('127.0.0.1', port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.2)


def train_registry(
    agent: str,
    env: str,
    size: int = 10,
    episodes: int | None = None,
    steps: int | None = None,
    seeds: int = 3,
    first_seed: int = 0,
    eval_every: int = 0,
    num_chunks: int = 10,
    snapshot_every: int = 0,
    **overrides,
):
    """Train registry agent `agent` (config: its defaults, the environment's presets, `overrides`) on registry
    environment `env` for exactly `episodes` episodes or `steps` steps, through `experiments.run` (run i has key
    PRNGKey(first_seed + i), as on the command line). Returns `(RunResult, the environment, the agent)`."""
    exp = Experiment(
        agent,
        env,
        episodes=episodes,
        steps=steps,
        seeds=seeds,
        first_seed=first_seed,
        size=size,
        overrides=overrides,
        eval_every=eval_every,
        num_chunks=num_chunks,
        snapshots=0 if not snapshot_every else (steps or episodes * size) // snapshot_every,
    )
    result = run(exp)
    e = make_env(env, size, 42)
    return result, e, make_agent(agent, result.config, gymnax_spec(e))


def stop_server(proc, timeout: float = 30) -> str:
    "Stop a server started by a test (SIGTERM, then SIGKILL after `timeout` s); what it printed ('' if killed)."
    proc.terminate()
    try:
        return proc.communicate(timeout=timeout)[0] or ''
    except subprocess.TimeoutExpired:
        proc.kill()
        return ''


def refused(capsys, *argv) -> str:
    """Run the command line in-process (`uncertain_rl.app.cli.main`): it must answer in one line
    `uncertain-rl: error: ...` with exit code 2 and no traceback. Returns what it printed."""
    from uncertain_rl.app.cli import main

    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith('uncertain-rl: error: '), err
    assert 'Traceback' not in err, err
    return err


def clone_with_this_tool(tmp_path) -> tuple:
    """A clone of this checkout with this checkout's `tools/golden.py` committed in it: `(repo, git, run)`, where
    `git(*args)` runs git there and `run(*args)` runs Python there with its own package, returning the output."""
    repo = tmp_path / 'repo'
    subprocess.run(['git', 'clone', '-q', '--local', str(ROOT), str(repo)], check=True)

    def git(*args):
        subprocess.run(['git', '-C', str(repo), '-c', 'user.name=t', '-c', 'user.email=t@t', *args], check=True)

    def run(*args):
        env = dict(os.environ, PYTHONPATH=str(repo))
        done = subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=1500)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    shutil.copy(ROOT / 'tools' / 'golden.py', repo / 'tools' / 'golden.py')  # this checkout's tool
    git('commit', '-qam', 'base', '--allow-empty')
    return repo, git, run
