"""Run every registry agent (or those named) for a few steps, sharded over all devices and on one device, and print
one JSON line per agent saying whether the two agree (run with XLA_FLAGS=--xla_force_host_platform_device_count=8).
Used by tests/test_sharding.py in a subprocess: the device count must be set before JAX starts. The names `sweep`
(a TDU β × prior-scale sweep) and `batch` (one device, a batch of 5 runs against the same runs in a batch of 9) may
be given among the agents."""

import json
import sys
from dataclasses import fields

import jax
import numpy as np

from uncertain_rl import registry
from uncertain_rl.loops import TrainConfig, train, run_sharded
from uncertain_rl.base import gymnax_spec

ENV_FOR = {False: ('deep_sea', 5), True: ('pendulum', 0)}
QUICK = dict(min_replay_size=8, batch_size=8, replay_capacity=64)  # learning starts within the few steps


def quick_run(agent: str, steps: int) -> tuple:
    "`(run, env_name)`: `agent` for `steps` steps on its environment (Deep Sea 5 or Pendulum), learning early."
    entry = registry.agent_entry(agent)
    env_name, size = ENV_FOR[entry.continuous]
    if entry.envs and env_name not in entry.envs:
        env_name = entry.envs[0]
    env = registry.make_env(env_name, size)
    names = {f.name for f in fields(entry.config())}
    config = registry.agent_config(agent, env_name, **{k: v for k, v in QUICK.items() if k in names})
    return train(TrainConfig(env, registry.make_agent(agent, config, gymnax_spec(env)), steps, steps)), env_name


def compare(agent: str, seeds: int, steps: int) -> dict:
    run, env_name = quick_run(agent, steps)
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    ref = jax.device_get(jax.jit(jax.vmap(run.run))(keys))
    out = run_sharded(run, keys, devices='all')
    pairs = list(zip(jax.tree.leaves(ref), jax.tree.leaves(out)))
    return dict(
        agent=agent,
        env=env_name,
        devices=len(jax.devices()),
        seeds=seeds,
        steps=steps,
        logs_equal=equal(zip(jax.tree.leaves(ref[1]), jax.tree.leaves(out[1]))),
        state_equal=equal(zip(jax.tree.leaves(ref[0]), jax.tree.leaves(out[0]))),
        max_rel_diff=worst(pairs),
    )


def equal(pairs) -> bool:
    "Every pair of arrays bit-identical (NaNs where both are NaN count as equal)."
    return all(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True) for a, b in pairs)


def worst(pairs) -> float:
    "The largest |a - b| / (1 + |a|) over every element (NaNs where both are NaN count as equal)."
    diff = lambda a, b: np.abs(a - b) / (1 + np.abs(a))
    return max(
        float(np.nanmax(diff(np.asarray(a, np.float64), np.asarray(b, np.float64)), initial=0.0)) for a, b in pairs
    )


def sweep(seeds: int = 2, steps: int = 40) -> dict:
    "TDU on Deep Sea 5 over a 2 x 2 grid of beta and prior scale, `seeds` each: sharded against vmapped hparams."
    import jax.numpy as jnp
    from uncertain_rl.agents.tdu import TDUConfig, make_tdu

    env = registry.make_env('deep_sea', 5)
    agent = make_tdu(TDUConfig(**QUICK), gymnax_spec(env))
    run = train(TrainConfig(env, agent, steps, steps))
    grid = np.meshgrid([0.5, 2.0], [0.0, 3.0], indexing='ij')
    values = {n: jnp.repeat(jnp.asarray(g.ravel(), jnp.float32), seeds) for n, g in zip(('beta', 'prior_scale'), grid)}
    hparams = jax.vmap(lambda v: agent.hparams.replace(**v))(values)
    keys = jnp.tile(jax.random.split(jax.random.PRNGKey(0), seeds), (4, 1))
    ref = jax.device_get(jax.jit(jax.vmap(run.run))(keys, hparams))
    out = run_sharded(run, keys, hparams, batched_hparams=True)
    return dict(
        agent='tdu sweep beta x prior_scale',
        env='deep_sea',
        devices=len(jax.devices()),
        seeds=len(keys),
        steps=steps,
        max_rel_diff=worst(zip(jax.tree.leaves(ref), jax.tree.leaves(out))),
    )


def batch_shape(agent: str = 'dqn', seeds: int = 9, first: int = 5, steps: int = 40) -> dict:
    """On ONE device, the first `first` of `seeds` runs vmapped alone against the same runs inside the whole batch:
    XLA compiles each batch shape into its own program, and for DQN the two differ in the last bit (see the loops
    notebook, "Bit for bit?"). `python tests/sharded_runs.py batch` prints the comparison."""
    run, env_name = quick_run(agent, steps)
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    whole = jax.tree.map(lambda x: x[:first], run_sharded(run, keys, devices=1))
    part = run_sharded(run, keys[:first], devices=1)
    pairs = list(zip(jax.tree.leaves(whole), jax.tree.leaves(part)))
    return dict(
        agent=f'{agent}: {first} runs alone vs in a batch of {seeds}, one device',
        env=env_name,
        devices=1,
        seeds=first,
        steps=steps,
        equal=equal(pairs),
        max_rel_diff=worst(pairs),
    )


if __name__ == '__main__':
    agents = sys.argv[1].split(',') if len(sys.argv) > 1 and sys.argv[1] else list(registry.AGENTS)
    seeds, steps = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (9, 40)
    special = {'sweep': sweep, 'batch': batch_shape}
    for a in agents:
        print(json.dumps(special[a]() if a in special else compare(a, seeds, steps)), flush=True)
