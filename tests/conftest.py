"""Helpers shared by the tests: the command line as a user runs it, and training runs built from the registry with
the seeds the command line uses (run i has key PRNGKey(first_seed + i)), every seed in one vmapped compiled call."""
import subprocess

import jax
import numpy as np

from uncertain_rl.loops import TrainConfig, train, gymnax_spec, run_chunked
from uncertain_rl.registry import agent_config, make_agent, make_env, env_entry


def cli(*args, timeout: int = 600) -> subprocess.CompletedProcess:
    "Run the installed `uncertain-rl` console script with `args`."
    return subprocess.run(['uncertain-rl', *args], capture_output=True, text=True, timeout=timeout)


def train_registry(agent: str, env: str, size: int = 10, episodes: int | None = None, steps: int | None = None,
                   seeds: int = 3, first_seed: int = 0, eval_every: int = 0, num_chunks: int = 10, hparams=None,
                   snapshot_every: int = 0, **overrides):
    """Train registry agent `agent` (config: its defaults, the environment's overrides and presets, `overrides`) on
    registry environment `env` for `episodes` episodes (times the longest episode) or `steps` steps; every episode
    is logged. Returns `(ChunkedResult, the environment, the agent)`."""
    e = make_env(env, size, 42)
    entry = env_entry(env)
    a = make_agent(agent, agent_config(agent, env, **overrides), gymnax_spec(e))
    steps = steps or episodes * entry.longest_episode(e)
    run = train(TrainConfig(e, a, num_steps=steps, max_episodes=steps // entry.shortest_episode(e),
                            eval_every=eval_every, eval_steps=entry.longest_episode(e), snapshot_every=snapshot_every))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(first_seed, first_seed + seeds))
    return run_chunked(run, keys, hparams, num_chunks=num_chunks, progress=False), e, a
