"""The persistent compilation cache (`loops.use_compilation_cache`, called by `run_chunked`): a second process that
trains the same run loads its programs from the cache (JAX's own cache-hit events) and gives the same results bit
for bit; `UNCERTAIN_RL_COMPILATION_CACHE=off` writes nothing. Each training runs in a fresh Python process, as a
user's second command would."""
import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys, jax, numpy as np
hits = []
jax.monitoring.register_event_listener(lambda name, **kw: hits.append(name) if 'cache_hits' in name else None)
from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.base import gymnax_spec
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import TrainConfig, run_chunked, train
env = DeepSea(5, mapping_seed=42)
run = train(TrainConfig(env, make_boot_dqn(BootDQNConfig(), gymnax_spec(env)), 500, 100))
res = run_chunked(run, jax.vmap(jax.random.PRNGKey)(np.arange(2)), num_chunks=2, progress=False)
print(json.dumps(dict(hits=len(hits), cache=res.layout['compilation_cache'],
                      returns=np.asarray(res.logs['episode_return']).tolist())))
"""


def _train(cache: str | None, **env_vars) -> dict:
    env = dict(os.environ, **env_vars)
    env.pop('JAX_COMPILATION_CACHE_DIR', None)
    env.pop('UNCERTAIN_RL_COMPILATION_CACHE', None)
    if cache is not None: env['UNCERTAIN_RL_COMPILATION_CACHE'] = cache
    out = subprocess.run([sys.executable, '-c', SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_loads_the_programs_and_gives_the_same_results(tmp_path):
    cache = tmp_path / 'cache'
    first = _train(str(cache))
    assert first['cache'] == str(cache) and first['hits'] == 0
    assert list(cache.iterdir()), 'nothing was written to the cache'
    second = _train(str(cache))
    assert second['hits'] >= 1, second['hits']
    assert second['returns'] == first['returns']


def test_on_by_default_in_the_user_cache_and_off_writes_nothing(tmp_path):
    default = _train(None, XDG_CACHE_HOME=str(tmp_path / 'a'))
    assert default['cache'] == str(tmp_path / 'a' / 'uncertain_rl' / 'jax')
    assert list((tmp_path / 'a' / 'uncertain_rl' / 'jax').iterdir())
    off = _train('off', XDG_CACHE_HOME=str(tmp_path / 'b'))
    assert off['cache'] == 'off' and off['hits'] == 0 and not (tmp_path / 'b' / 'uncertain_rl').exists()
    assert off['returns'] == default['returns']
