import sys, time, jax, jax.numpy as jnp, numpy as np
from uncertain_rl.agents.iv_dqn import IVDQNConfig, make_iv_dqn
from uncertain_rl.agents.boot_dqn import BootDQNConfig, make_boot_dqn
from uncertain_rl.envs.cartpole import Cartpole
from uncertain_rl.loops import TrainConfig, gymnax_spec, run_chunked, train
env = Cartpole(noise_scale=1.)
steps = int(sys.argv[2])
kw = eval('dict(' + (sys.argv[3] if len(sys.argv) > 3 else '') + ')')
if sys.argv[1] == 'iv': agent = make_iv_dqn(IVDQNConfig(**kw), gymnax_spec(env))
else: agent = make_boot_dqn(BootDQNConfig(**kw, num_ensemble=5, mask_prob=.5, epsilon=.05, sgd_period=2, target_update_period=25, max_grad_norm=5., replay_capacity=2**16, min_replay_size=64), gymnax_spec(env))
t = time.time()
res = run_chunked(train(TrainConfig(env, agent, steps, 2000)), jax.vmap(jax.random.PRNGKey)(jnp.arange(3)), progress=False)
r = res.logs['episode_return']
for s in range(3):
    x = r[s][np.isfinite(r[s])]
    ma = np.convolve(x, np.ones(100) / 100, 'valid') if len(x) >= 100 else np.array([x.mean()])
    print(sys.argv[1], kw, 'seed', s, 'episodes', len(x), 'best MA100', round(float(ma.max()), 1), 'last 20 mean', round(float(x[-20:].mean()), 1))
print(f'{time.time() - t:.0f}s')
