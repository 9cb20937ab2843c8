"""Runs laid over several devices (`loops.run_sharded`, `run_chunked(devices=...)`) and over several processes
(`jax.distributed`), against the single-device vmap. The device count must be fixed before JAX starts, so each case
runs in a subprocess with `XLA_FLAGS=--xla_force_host_platform_device_count=8` (or two processes).

What is exact and what is not: several devices are compiled by XLA's SPMD pipeline, which rewrites a few
floating-point expressions (Adam's bias correction among them) differently from the single-device pipeline, and XLA
emits some reductions differently for different batch shapes even on one device (DQN vmapped over 5 or 9 seeds
differs in the last bit), so the sharded run agrees with the single-device one to float32 rounding, not bit for bit
(see the loops notebook, "Bit for bit?"). The same runs over the same layout agree bit for bit, whichever process
owns them."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
TOL = 1e-4  # |sharded - single| / (1 + |single|), after a few learning steps (measured: at most 2e-5)
# Where Adam amplifies rounding more, with the reason. Adam's step is lr * m / (sqrt(v) + eps): a weight whose gradient
# is rounding alone (|g| ~ 1e-10) moves by up to lr / eps * |g| = 1e5 * |g| a step, in a direction rounding picks.
# E-AZ's policy head starts near its search's targets, so its softmax cross-entropy gradients cancel to that level:
# measured on the 256 x 256 layer's weights, |m| ~ 6e-11, v ~ 1e-22, a weight 1.5e-4 apart after 5 updates (largest
# relative difference 1.1e-4 on an Intel Xeon, 1.4e-4 on an AMD EPYC; every leaf bit-equal on one device). The bound
# below: 5 updates x lr / eps (1e-3 / 1e-8) x a rounding-level gradient of 1e-9. A run sharded wrongly (another seed's
# state, a dropped device) differs by far more.
TOL_FOR = {'e_az_sim': 5e-4}


def forced(devices: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != 'UNCERTAIN_RL_CPU_DEVICES'}
    return dict(env, XLA_FLAGS=f'--xla_force_host_platform_device_count={devices}', JAX_PLATFORMS='cpu')


def sharded_cases(agents: str, seeds: int = 9, steps: int = 40) -> list:
    out = subprocess.run(
        [sys.executable, str(HERE / 'sharded_runs.py'), agents, str(seeds), str(steps)],
        env=forced(8),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith('{')]


def check(case: dict):
    assert case['devices'] == 8
    assert case['max_rel_diff'] <= TOL_FOR.get(case['agent'], TOL), case


@pytest.mark.long
def test_sharded_equals_single_device_boot_dqn():
    "Bootstrapped DQN, 9 seeds on 8 forced CPU devices (5 used, 2 runs each, one padded), 40 steps."
    cases = sharded_cases('boot_dqn')
    assert [c['agent'] for c in cases] == ['boot_dqn']
    for c in cases:
        check(c)


@pytest.mark.slow
def test_sharded_equals_single_device_every_agent_and_a_sweep():
    """Every agent in the registry, 9 seeds on 8 forced CPU devices, 40 steps (learning from step 8), and a TDU
    β × prior-scale sweep (2 × 2 settings × 2 seeds, hyperparameters batched)."""
    from uncertain_rl import registry

    cases = sharded_cases(','.join(list(registry.AGENTS) + ['sweep']))
    assert {c['agent'] for c in cases} == set(registry.AGENTS) | {'tdu sweep beta x prior_scale'}
    for c in cases:
        check(c)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.mark.long
def test_two_processes_equal_one_process(tmp_path):
    "Two processes on 127.0.0.1 (one CPU device each, gloo collectives) against one process with two devices."
    port, worker = free_port(), str(HERE / 'distributed_worker.py')
    env = forced(1)
    procs = [
        subprocess.Popen(
            [sys.executable, worker, str(tmp_path / 'two.npz'), str(i), '2', str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0, e[-3000:]
    one = subprocess.run(
        [sys.executable, worker, str(tmp_path / 'one.npz')], env=forced(2), capture_output=True, text=True, timeout=600
    )
    assert one.returncode == 0, one.stderr[-3000:]
    two, ref = np.load(tmp_path / 'two.npz'), np.load(tmp_path / 'one.npz')
    assert "'processes': 2" in str(two['layout']) and "'devices': 2" in str(two['layout'])
    assert "'processes': 1" in str(ref['layout']) and "'padded': 1" in str(ref['layout'])
    assert sorted(two.files) == sorted(ref.files)
    for k in two.files:
        if k != 'layout':
            np.testing.assert_array_equal(two[k], ref[k], err_msg=k)
    assert np.isfinite(two['logs/episode_return']).all() and two['logs/episode_return'].shape == (3, 40)


def test_cli_devices_bad_input(capsys):
    "`--devices` takes 'all' or a count of the devices there are: anything else is a one-line usage error (exit 2)."
    from uncertain_rl.app.cli import main

    for bad in ('x', '0', '999'):
        assert main(['train', '--devices', bad, '--episodes', '1', '--no-progress']) == 2
        err = capsys.readouterr().err
        assert err.startswith('uncertain-rl: error: --devices') and err.count('\n') == 1, err


DEFAULT_LAYOUT = """
import json, sys
if sys.argv[1] == 'import':
    import uncertain_rl, uncertain_rl.loops, uncertain_rl.experiments, jax
    print(json.dumps(dict(devices=jax.device_count())))
else:
    if sys.argv[1] == 'run':                   # a script as the docs say: the process's setup first
        from uncertain_rl import runtime; runtime.setup()
    from uncertain_rl.experiments import Experiment, run
    res = run(Experiment('dqn', 'deep_sea', episodes=4, size=4, seeds=4, eval_every=0, snapshots=0, num_chunks=1))
    print(json.dumps(res.layout))
"""


def default_layout(what: str, **env) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ('UNCERTAIN_RL_CPU_DEVICES', 'XLA_FLAGS')}
    out = subprocess.run(
        [sys.executable, '-c', DEFAULT_LAYOUT, what],
        env=dict(base, JAX_PLATFORMS='cpu', **env),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.long
def test_default_cpu_layout():
    """Importing the package leaves JAX's device count alone; `runtime.setup()` first (as the command line does) gives
    the CPU one device per core before JAX starts and the run records the choice; `UNCERTAIN_RL_CPU_DEVICES=1` keeps
    one device; without it, `Experiment()` starts JAX and `run` can no longer choose, and the run records that."""
    assert default_layout('import') == dict(devices=1)
    late = default_layout('late')
    assert late['devices'] == 1 and 'JAX had started' in late['cpu_devices'], late
    cores = os.cpu_count() or 1
    layout = default_layout('run')
    assert layout['devices'] == min(4, cores) and layout['cpu_devices'].startswith('one per core'), layout
    layout = default_layout('run', UNCERTAIN_RL_CPU_DEVICES='1')
    assert layout['devices'] == 1 and 'UNCERTAIN_RL_CPU_DEVICES' in layout['cpu_devices'], layout
    bad = subprocess.run(
        [sys.executable, '-c', DEFAULT_LAYOUT, 'run'],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, UNCERTAIN_RL_CPU_DEVICES='many', JAX_PLATFORMS='cpu'),
    )
    assert bad.returncode != 0 and "UNCERTAIN_RL_CPU_DEVICES must be 'cores' or a count" in bad.stderr


SUITE_UNDER_DISTRIBUTED = """
import sys, jax
jax.distributed.initialize(f'127.0.0.1:{sys.argv[3]}', num_processes=2, process_id=int(sys.argv[2]))
from uncertain_rl.suites import store
try: store.run(['dqn'], 'deep_sea', 'quick', sys.argv[1])
except ValueError as e: print('refused:', e); sys.exit(0)
print('ran'); sys.exit(1)
"""


def test_the_suite_refuses_jax_distributed_in_one_line(tmp_path):
    "Under `jax.distributed` (two processes) the suite refuses at once, naming --shard, instead of deadlocking."
    port = free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, '-c', SUITE_UNDER_DISTRIBUTED, str(tmp_path / 'store'), str(i), str(port)],
            env=forced(1),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0 and 'refused:' in o and '--shard K/N' in o, (o, e[-2000:])
    assert not (tmp_path / 'store' / 'results.sqlite').exists()
