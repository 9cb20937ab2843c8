"""Process setup lives in `runtime` and happens only when called (`runtime.setup`, which `experiments.run` and the
command line call): importing every module of the package, building `Experiment`s and training with `train` and
`run_chunked` leave `jax.config` and JAX's lowering rules as they were. Each check runs in a fresh Python process,
since these settings belong to the whole process."""

import json
import os
import subprocess
import sys

import pytest

SCRIPT = """
import importlib, json, pkgutil, sys
import jax
from jax._src.interpreters import mlir
from jax._src.random import threefry2x32 as tf
def rule(): return mlir._platform_specific_lowerings['cpu'].get(tf.threefry2x32_p)
before, rule_before = dict(jax.config.values), rule()
import uncertain_rl
imported, optional = [], []
for m in pkgutil.walk_packages(uncertain_rl.__path__, 'uncertain_rl.'):
    if m.name.endswith('__main__'): continue
    try: importlib.import_module(m.name); imported.append(m.name)
    except ImportError as e: optional.append(f'{m.name}: {e}')       # an optional extra that is not installed
from uncertain_rl.experiments import Experiment
for agent in ('dqn', 'e_az', 'iv_sac'):
    Experiment(agent, 'pendulum' if agent == 'iv_sac' else 'deep_sea', episodes=2, size=4)
if sys.argv[1] == 'train':
    from uncertain_rl.base import gymnax_spec
    from uncertain_rl.loops import TrainConfig, run_chunked, train
    from uncertain_rl.registry import agent_config, make_agent, make_env
    env = make_env('deep_sea', 4, 42)
    run = train(TrainConfig(env, make_agent('dqn', agent_config('dqn'), gymnax_spec(env)), 40, 10))
    run_chunked(run, jax.random.split(jax.random.PRNGKey(0), 2), num_chunks=2, progress=False)
if sys.argv[1] == 'setup':
    from uncertain_rl import runtime
    print(json.dumps(dict(described=runtime.setup())), file=sys.stderr)
after = dict(jax.config.values)
changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
print(json.dumps(dict(changed=changed, rule_changed=rule() is not rule_before, imported=imported, optional=optional)))
"""


def _settings_changed(what: str, tmp_path) -> dict:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(('UNCERTAIN_RL_', 'JAX_COMPILATION', 'JAX_PERSISTENT'))
    }
    env.update(XDG_CACHE_HOME=str(tmp_path), JAX_PLATFORMS='cpu')
    out = subprocess.run([sys.executable, '-c', SCRIPT, what], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.long
def test_imports_experiments_and_training_change_no_jax_setting(tmp_path):
    seen = _settings_changed('train', tmp_path)
    assert len(seen['imported']) > 40 and 'uncertain_rl.runtime' in seen['imported'], seen
    assert seen['changed'] == [] and not seen['rule_changed'], seen


def test_setup_changes_exactly_the_process_settings_it_names(tmp_path):
    "The same script calling `runtime.setup()` at its end: the check above can fail, and setup is all there is."
    seen = _settings_changed('setup', tmp_path)
    assert set(seen['changed']) == {'jax_compilation_cache_dir', 'jax_persistent_cache_min_compile_time_secs'}, seen
    assert seen['rule_changed'], seen  # JAX had started (the Experiments above), so the device count stays
