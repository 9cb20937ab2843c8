"""The persistent compilation cache (`runtime.use_compilation_cache`, called by `runtime.setup`): a second process that
trains the same run loads its programs from the cache (JAX's own cache-hit events) and gives the same results bit
for bit; `UNCERTAIN_RL_COMPILATION_CACHE=off` writes nothing. Each training runs in a fresh Python process, as a
user's second command would."""

import pytest
import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys, jax, numpy as np
hits = []
jax.monitoring.register_event_listener(lambda name, **kw: hits.append(name) if 'cache_hits' in name else None)
from uncertain_rl.agents.dqn import DQNConfig, make_dqn
from uncertain_rl.base import gymnax_spec
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import TrainConfig, run_chunked, train
from uncertain_rl import runtime
runtime.setup()
env = DeepSea(5, mapping_seed=42)
run = train(TrainConfig(env, make_dqn(DQNConfig(), gymnax_spec(env)), 500, 100))
res = run_chunked(run, jax.vmap(jax.random.PRNGKey)(np.arange(2)), num_chunks=2, progress=False)
print(json.dumps(dict(hits=len(hits), cache=res.layout['compilation_cache'],
                      returns=np.asarray(res.logs['episode_return']).tolist())))
"""


def _train(cache: str | None, **env_vars) -> dict:
    env = dict(os.environ, **env_vars)
    env.pop('JAX_COMPILATION_CACHE_DIR', None)  # JAX's own cache settings, where a shell sets them: the package's
    env.pop('JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS', None)  # choices are what these tests check
    env.pop('UNCERTAIN_RL_COMPILATION_CACHE', None)
    if cache is not None:
        env['UNCERTAIN_RL_COMPILATION_CACHE'] = cache
    out = subprocess.run([sys.executable, '-c', SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.long
def test_on_by_default_loaded_by_the_next_process_with_the_same_results_and_off_writes_nothing(tmp_path):
    cache = tmp_path / 'home' / 'uncertain_rl' / 'jax'
    first = _train(None, XDG_CACHE_HOME=str(tmp_path / 'home'))  # on by default, in the user's cache
    assert first['cache'] == str(cache) and first['hits'] == 0 and list(cache.iterdir())
    second = _train(None, XDG_CACHE_HOME=str(tmp_path / 'home'))
    assert second['hits'] >= 1, second['hits']  # loaded, not compiled
    assert second['returns'] == first['returns']  # bit for bit
    off = _train('off', XDG_CACHE_HOME=str(tmp_path / 'other'))
    assert off['cache'] == 'off' and off['hits'] == 0 and not (tmp_path / 'other' / 'uncertain_rl').exists()
    assert off['returns'] == first['returns']
