"""One process of a multi-process run (tests/test_sharding.py): `python distributed_worker.py OUT [ID COUNT PORT]`.
With ID COUNT PORT it joins `jax.distributed` on 127.0.0.1 first (CPU collectives), before anything starts JAX;
without, it runs alone. Bootstrapped DQN on Deep Sea 5, 3 seeds, laid over every device of every process; process 0
writes the gathered logs and final states to OUT (an .npz)."""

import sys

import jax

if len(sys.argv) > 2:
    pid, count, port = map(int, sys.argv[2:5])
    jax.distributed.initialize(f'127.0.0.1:{port}', num_processes=count, process_id=pid)

import numpy as np  # noqa: E402
from dataclasses import replace  # noqa: E402

from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn  # noqa: E402
from uncertain_rl.envs.deep_sea import DeepSea  # noqa: E402
from uncertain_rl.loops import TrainConfig, train, run_chunked
from uncertain_rl.base import gymnax_spec  # noqa: E402

env = DeepSea(5, mapping_seed=42)
config = replace(BootDQNConfig(), min_replay_size=16, batch_size=16, num_ensemble=4)
run = train(TrainConfig(env, make_boot_dqn(config, gymnax_spec(env)), num_steps=5 * 40, max_episodes=40))
res = run_chunked(run, jax.random.split(jax.random.PRNGKey(0), 3), num_chunks=4, progress=False)
if jax.process_index() == 0:
    flat = {f'logs/{k}': v for k, v in res.logs.items()}
    flat.update({f'state/{i}': np.asarray(x) for i, x in enumerate(jax.tree.leaves(res.agent_state))})
    np.savez(sys.argv[1], **flat, layout=str(res.layout))
    print(res.layout)
