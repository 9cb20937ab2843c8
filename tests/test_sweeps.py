"""Numeric hyperparameters are traced: a sweep over the prior scale is one vmapped call, and each member of the
sweep equals the run made with that value alone."""

import jax
import jax.numpy as jnp
import numpy as np

from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import TrainConfig, train
from uncertain_rl.base import gymnax_spec


def test_prior_scale_sweep_is_one_vmapped_call():
    env = DeepSea(5)
    cfg = BootDQNConfig(num_ensemble=4, hidden_sizes=(16,), batch_size=16, min_replay_size=16)
    agent = make_boot_dqn(cfg, gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=5 * 20, max_episodes=20))
    scales = jnp.array([0.0, 1.0, 5.0])
    hps = jax.vmap(lambda lam: agent.hparams.replace(prior_scale=lam))(scales)
    key = jax.random.PRNGKey(0)
    states, logs = jax.jit(jax.vmap(run.run, in_axes=(None, 0)))(key, hps)
    assert logs['loss'].shape == (3, 20)
    for i, lam in enumerate([0.0, 1.0, 5.0]):
        _, alone = jax.jit(run.run)(key, agent.hparams.replace(prior_scale=jnp.float32(lam)))
        np.testing.assert_allclose(np.asarray(logs['loss'][i]), np.asarray(alone['loss']), rtol=1e-4, atol=1e-6)
    assert not np.allclose(np.asarray(logs['loss'][0]), np.asarray(logs['loss'][2]))  # λ really changes training
