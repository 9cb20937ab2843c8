import sys, time, jax, jax.numpy as jnp, numpy as np
from uncertain_rl.agents.iv_dqn import IVDQNConfig, make_iv_dqn
from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.cartpole import Cartpole
from uncertain_rl.loops import TrainConfig, gymnax_spec, run_chunked, train
env = Cartpole(noise_scale=1.)
if sys.argv[1] == 'iv': agent = make_iv_dqn(IVDQNConfig(batch_size=256), gymnax_spec(env))
else: agent = make_boot_dqn(BootDQNConfig(batch_size=256, num_ensemble=5, mask_prob=.5, epsilon=.05, sgd_period=2, target_update_period=25, max_grad_norm=5., replay_capacity=2**16, min_replay_size=64), gymnax_spec(env))
t = time.time()
res = run_chunked(train(TrainConfig(env, agent, 100_000, 2000, eval_every=5000, eval_episodes=5, eval_steps=1001)), jax.vmap(jax.random.PRNGKey)(jnp.arange(3)), progress=False)
ev = res.evals
print(sys.argv[1], 'greedy returns every 5k steps:')
for s in range(3): print('  seed', s, np.round(np.asarray(ev['greedy_return'][s]), 0).tolist())
print(f'{time.time() - t:.0f}s')
