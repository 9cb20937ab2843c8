"""rejax's DQN on gymnax's Breakout-MinAtar, timed: environment steps per second, compilation excluded.

Runs in rejax's own venv (`setup.sh` beside this file builds it), never in ours:

    /work/venvs/rejax/bin/python benchmarks/oracles/rejax/time_dqn.py --steps 30000 --seeds 1 4 [--stock-network]

rejax's training code runs unchanged (`rejax.get_algo('dqn').create(...)`, then `jax.jit(jax.vmap(algo.train))` over
`split(PRNGKey(0), seeds)` keys). Three things are set on the created algorithm's (static) fields, all through rejax's
own interface: the environment is gymnax's `MinBreakout(use_minimal_action_set=False)` (six actions, as ours; passed
as `env=`), the evaluation callback is a no-op (rejax evaluates 128 greedy episodes every `eval_freq` steps; ours is
timed without evaluations too), and, unless `--stock-network`, the Q-network module is MinAtar's (a 3x3 convolution
of 16 channels, valid padding, ReLU, then ReLU layers of `--hidden`: ours on image observations) in place of rejax's
MLP on the flattened image (`DiscreteQNetwork`, swish by default). Every other setting is a `create` keyword (see
`settings`). Prints one JSON object: the settings, and per seed count the compile and run seconds and steps/s.
"""

import argparse
import importlib.metadata as md
import json
import time
from collections.abc import Sequence

import jax
import jax.numpy as jnp
from flax import linen as nn


class MinAtarQNetwork(nn.Module):
    """MinAtar's Q-network with rejax's `DiscreteQNetwork` interface (`__call__(obs [B, 10, 10, C])`, `take`): a
    3x3 convolution of 16 channels (valid padding), ReLU, then Dense ReLU layers of `hidden_layer_sizes`, then one
    Dense output per action."""

    hidden_layer_sizes: Sequence[int]
    action_dim: int
    activation: object = nn.relu  # rejax passes one; MinAtar's network is ReLU throughout

    @nn.compact
    def __call__(self, obs):
        x = nn.relu(nn.Conv(16, (3, 3), padding='VALID')(obs.astype(jnp.float32)))
        x = x.reshape((x.shape[0], -1))
        for size in self.hidden_layer_sizes:
            x = self.activation(nn.Dense(size)(x))
        return nn.Dense(self.action_dim)(x)

    def take(self, obs, action):
        return jnp.take_along_axis(self(obs), action[:, None], axis=1).squeeze(1)


def add_dqn_arguments(ap: argparse.ArgumentParser):
    "The DQN settings `make_algo` reads (our side's `minatar_dqn_speed.add_shared_arguments` gives the same)."
    ap.add_argument('--hidden', type=int, nargs='+', default=[128])
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--buffer', type=int, default=100_000)
    ap.add_argument('--learning-starts', type=int, default=1000)
    ap.add_argument('--target-period', type=int, default=1000)
    ap.add_argument('--lr', type=float, default=2.5e-4)
    ap.add_argument('--eps-end', type=float, default=0.05)
    ap.add_argument('--exploration-fraction', type=float, default=0.1)
    ap.add_argument('--stock-network', action='store_true', help="rejax's own MLP on the flattened image")


def make_algo(args):
    import rejax
    from gymnax.environments.minatar.breakout import MinBreakout
    from rejax.networks import DiscreteQNetwork, EpsilonGreedyPolicy

    env = MinBreakout(use_minimal_action_set=False)
    settings = dict(
        total_timesteps=args.steps,
        eval_freq=args.steps,  # one block of training iterations, no evaluation in between
        skip_initial_evaluation=True,
        num_envs=1,
        buffer_size=args.buffer,
        fill_buffer=args.learning_starts,
        batch_size=args.batch,
        num_epochs=1,  # gradient steps per training iteration (one iteration: num_envs environment steps)
        target_update_freq=args.target_period,
        polyak=0.0,  # 0: the target is a hard copy every target_update_freq steps
        learning_rate=args.lr,
        gamma=0.99,
        eps_start=1.0,
        eps_end=args.eps_end,
        exploration_fraction=args.exploration_fraction,
        ddqn=False,
        max_grad_norm=float('inf'),  # optax.clip(inf): no clipping (rejax's default)
        normalize_observations=False,
        normalize_rewards=False,
        agent_kwargs=dict(activation='relu'),
    )
    algo = rejax.get_algo('dqn').create(env=env, env_params=env.default_params, **settings)
    # rejax 0.1.3's create_agent fixes hidden_layer_sizes=(64, 64) (giving it in agent_kwargs is a TypeError, "got
    # multiple values"), so the network of the sizes asked for replaces it: rejax's own module, or MinAtar's.
    hidden = tuple(args.hidden)
    if args.stock_network:
        agent = EpsilonGreedyPolicy(DiscreteQNetwork)(
            hidden_layer_sizes=hidden, action_dim=env.num_actions, activation=nn.relu
        )
        network = f'rejax DiscreteQNetwork: MLP on the flat 10x10x4 image, ReLU {hidden}, {env.num_actions} outputs'
    else:
        agent = EpsilonGreedyPolicy(MinAtarQNetwork)(hidden_layer_sizes=hidden, action_dim=env.num_actions)
        network = f'MinAtar: conv 3x3x16 valid ReLU, then ReLU {hidden}, then {env.num_actions} outputs'
    algo = algo.replace(agent=agent, eval_callback=lambda algo, ts, rng: jnp.zeros(()))  # and no evaluation
    settings['agent_kwargs'] = {k: str(v) for k, v in settings['agent_kwargs'].items()}
    return algo, dict(
        settings,
        network=network,
        env='gymnax MinBreakout(use_minimal_action_set=False)',
        num_actions=int(env.num_actions),
        sticky_action_prob=0.0,
        max_steps_in_episode=int(env.default_params.max_steps_in_episode),
    )


def time_seeds(algo, seeds: int) -> dict:
    keys = jax.random.split(jax.random.PRNGKey(0), seeds)
    t0 = time.perf_counter()
    compiled = jax.jit(jax.vmap(algo.train)).lower(keys).compile()
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ts, _ = compiled(keys)
    jax.block_until_ready(ts)
    run_s = time.perf_counter() - t0
    steps = [int(s) for s in jax.device_get(ts.global_step)]
    return dict(
        seeds=seeds,
        compile_seconds=compile_s,
        run_seconds=run_s,
        env_steps_per_seed=steps,
        steps_per_second_per_seed=steps[0] / run_s,
        steps_per_second_aggregate=sum(steps) / run_s,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=30_000, help='environment steps per seed')
    ap.add_argument('--seeds', type=int, nargs='+', default=[1, 4], help='vmapped seed counts to time')
    add_dqn_arguments(ap)
    args = ap.parse_args()
    algo, settings = make_algo(args)
    runs = [time_seeds(algo, s) for s in args.seeds]
    versions = {p: md.version(p) for p in ('rejax', 'gymnax', 'jax', 'jaxlib', 'flax', 'optax')}
    print(json.dumps(dict(versions=versions, devices=[str(d) for d in jax.devices()], settings=settings, runs=runs)))


if __name__ == '__main__':
    main()
