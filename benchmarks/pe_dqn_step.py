"""PE-DQN's learner step with the exact disagreement computed four ways: CPU and wall milliseconds per step.

The step (one environment transition stored, one SGD step on a batch of 128 from a filled replay, the CPU profile on
Deep Sea 10's observations) is timed as 50 steps in one compiled loop, best of 5. The disagreement is the sort-free
merge (`wasserstein_1_merge`, the code as it is), the sorted reference (`wasserstein_1` patched in for it), the
projected variant (`disagreement='projected'`), or a trivial stand-in that reads the same inputs: the stand-in's time
is the rest of the step. CPU time of the process is given beside wall time because it is less disturbed by other
jobs on a shared machine.

    python benchmarks/pe_dqn_step.py [merge sort projected stand_in ...]   # in the order given, repeats allowed
"""

import sys
import time
from collections import namedtuple

import jax
import jax.numpy as jnp

import uncertain_rl.projections as P
from uncertain_rl.agents import pe_dqn as PE
from uncertain_rl.base import EnvSpec

MERGE = P.wasserstein_1_merge
VARIANTS = {
    'merge': ('exact', MERGE),
    'sort': ('exact', lambda x, p, y, q, x_sorted=False: P.wasserstein_1(x, p, y, q)),
    'projected': ('projected', MERGE),
    'stand_in': ('exact', lambda x, p, y, q, x_sorted=False: (p * q).sum() + 0 * (x - y).sum()),
}
Transition = namedtuple('Transition', 'obs action reward discount next_obs done')


def ms_per_step(disagreement: str, steps: int = 50, rounds: int = 5) -> tuple:
    "(wall, CPU) milliseconds per step, the best of `rounds` runs of `steps` steps."
    spec = EnvSpec((10, 10), 2, True)
    agent = PE.make_pe_dqn(PE.PEDQNConfig(disagreement=disagreement, v_min=-1.0, v_max=1.0), spec)  # Deep Sea's returns
    cells = jnp.eye(100).reshape(100, 10, 10)
    transition = lambda i: Transition(
        cells[i % 100], i % 2, jnp.float32(0.0), jnp.float32(1.0), cells[(i + 7) % 100], jnp.bool_(False)
    )
    step = jax.jit(lambda s, i: agent.observe(s, transition(i), jax.random.PRNGKey(i))[0])
    state = agent.init(jax.random.PRNGKey(0), cells[3], agent.hparams)
    state = jax.lax.fori_loop(0, 200, lambda i, s: step(s, i), state)  # replay beyond min_replay_size
    many = jax.jit(lambda s: jax.lax.fori_loop(0, steps, lambda i, s: step(s, i), s))
    jax.block_until_ready(many(state))
    wall = cpu = float('inf')
    for _ in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        jax.block_until_ready(many(state))
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    return 1e3 * wall / steps, 1e3 * cpu / steps


if __name__ == '__main__':
    for name in sys.argv[1:] or ['sort', 'merge', 'projected', 'stand_in']:
        disagreement, P.wasserstein_1_merge = VARIANTS[name]
        wall, cpu = ms_per_step(disagreement)
        P.wasserstein_1_merge = MERGE
        print(f'{name:10s} {wall:6.2f} ms/step wall {cpu:6.2f} ms/step CPU', flush=True)
