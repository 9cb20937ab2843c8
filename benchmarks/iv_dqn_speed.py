"""IV-DQN on cartpole_noise: environment steps per second of our compiled agent against bsuite's own
`bsuite.baselines.jax.boot_dqn` on bsuite's own numpy `Cartpole` with `RewardNoise` (scale 1), in one run.

bsuite's agent gets the IV-RL authors' bsuite settings (5 members, masks at 0.5, ε = 0.05, batch 128, learning every
2 steps from 64 transitions, target copy every 25 learning steps, 2^16 replay, MLP [50, 50], prior scale 5, Adam 1e-3)
and is timed over `--bsuite-steps` steps after a warm-up that compiles and starts learning. It is plain Bootstrapped
DQN (one-step targets, one mean head): IV-DQN does strictly more per learning step (2A outputs, the Eq. 14 mixture
over members, the ξ bisection per member, 4-step windows), so the ratio understates ours on equal work; our own
Bootstrapped DQN with the same settings is printed beside it. Ours: through `experiments.run`, the whole training one
compiled chunk on one device (no evaluations), timed over `--steps` steps (`RunResult.run_seconds`; compile seconds
apart), 1 seed and `--seeds` vmapped seeds (aggregate steps/s).

    pip install -e ".[dev,benchmark]"      # bsuite's agent needs dm-haiku
    python benchmarks/iv_dqn_speed.py [--steps 20000] [--bsuite-steps 4000] [--seeds 4]
"""

import argparse
import time

import jax

from boot_dqn_speed import compiled_rate


def bsuite_steps_per_second(steps: int, warmup: int = 1000) -> float:
    import haiku as hk
    import optax
    from jax import lax
    from bsuite.baselines.jax import boot_dqn
    from bsuite.environments.cartpole import Cartpole as BsuiteCartpole
    from bsuite.utils.wrappers import RewardNoise

    env = RewardNoise(BsuiteCartpole(seed=0), noise_scale=1.0, seed=0)
    obs_spec, action_spec = env.observation_spec(), env.action_spec()

    def network(inputs):
        net, prior = hk.nets.MLP([50, 50, action_spec.num_values]), hk.nets.MLP([50, 50, action_spec.num_values])
        x = hk.Flatten()(inputs)
        return net(x) + 5.0 * lax.stop_gradient(prior(x))

    agent = boot_dqn.BootstrappedDqn(
        obs_spec,
        action_spec,
        network,
        num_ensemble=5,
        batch_size=128,
        discount=0.99,
        replay_capacity=2**16,
        min_replay_size=64,
        sgd_period=2,
        target_update_period=25,
        optimizer=optax.adam(1e-3),
        mask_prob=0.5,
        noise_scale=0.0,
        epsilon_fn=lambda _: 0.05,
        seed=0,
    )
    ts = env.reset()

    def run(n):
        nonlocal ts
        for _ in range(n):
            if ts.last():
                ts = env.reset()
            action = agent.select_action(ts)
            new_ts = env.step(action)
            agent.update(ts, action, new_ts)
            ts = new_ts

    run(warmup)
    start = time.perf_counter()
    run(steps)
    return steps / (time.perf_counter() - start)


def ours(agent_name: str, seeds: int, steps: int) -> tuple[float, float]:
    "(aggregate steps per second, compile seconds) of a registered agent with its cartpole_noise preset."
    return compiled_rate(agent_name, 'cartpole_noise', seeds, steps, steps=steps, overrides=dict(batch_size=128))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=20_000)
    ap.add_argument('--bsuite-steps', type=int, default=4000)
    ap.add_argument('--seeds', type=int, default=4)
    args = ap.parse_args()
    print(f"cartpole_noise (scale 1) on {jax.devices()[0].platform}, jax {jax.__version__}")
    ref = bsuite_steps_per_second(args.bsuite_steps)
    print(f"{'agent':<52}{'steps/s':>10}{'vs bsuite':>11}{'compile s':>11}")
    print(f"{'bsuite boot_dqn (haiku, numpy env, 1 seed)':<52}{ref:>10.0f}{1:>10.2f}x{'-':>11}")
    for name, label in (('boot_dqn', 'ours, Bootstrapped DQN (same settings)'), ('iv_dqn', 'ours, IV-DQN')):
        for seeds in (1, args.seeds):
            sps, c = ours(name, seeds, args.steps)
            print(f"{f'{label}, {seeds} seed(s)':<52}{sps:>10.0f}{sps / ref:>10.2f}x{c:>11.1f}")


if __name__ == '__main__':
    main()
