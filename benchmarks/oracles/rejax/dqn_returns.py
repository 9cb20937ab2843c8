"""rejax's DQN on gymnax's Breakout-MinAtar, learning: greedy returns at evaluations through training.

Runs in rejax's own venv (`setup.sh` beside this file builds it), never in ours:

    /work/venvs/rejax/bin/python benchmarks/oracles/rejax/dqn_returns.py --steps 80000 --seeds 4 --evals 8

The algorithm is `time_dqn.py`'s (`make_algo`: rejax's DQN unchanged, six actions, MinAtar's network, every setting a
`create` keyword), with rejax's own evaluation in place of the timing's no-op: every `steps / evals` environment steps
rejax's `evaluate` plays `--eval-episodes` greedy episodes (its `make_act`, at most `max_steps_in_episode` steps each)
from keys of the training's own stream. Prints one JSON object: the settings, and per seed the mean greedy return
of each evaluation and the steps it came after.
"""

import argparse
import importlib.metadata as md
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from time_dqn import add_dqn_arguments, make_algo  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=80_000, help='environment steps per seed')
    ap.add_argument('--seeds', type=int, default=4, help='vmapped seeds (keys split(PRNGKey(0), seeds))')
    ap.add_argument('--evals', type=int, default=8, help='evaluations, one every steps / evals steps')
    ap.add_argument('--eval-episodes', type=int, default=32, help='greedy episodes per evaluation')
    add_dqn_arguments(ap)
    args = ap.parse_args()
    if args.steps % args.evals:
        sys.exit(f'--evals must divide --steps, got {args.evals} and {args.steps}')
    from rejax.evaluate import evaluate

    algo, settings = make_algo(args)
    env, params, n = algo.env, algo.env_params, args.eval_episodes

    def greedy(algo, ts, rng):
        lengths, returns = evaluate(algo.make_act(ts), rng, env, params, n, params.max_steps_in_episode)
        return jnp.mean(returns)

    algo = algo.replace(eval_freq=args.steps // args.evals, skip_initial_evaluation=True, eval_callback=greedy)
    keys = jax.random.split(jax.random.PRNGKey(0), args.seeds)
    ts, returns = jax.jit(jax.vmap(algo.train))(keys)
    returns = jax.device_get(returns)  # [seeds, evals]
    versions = {p: md.version(p) for p in ('rejax', 'gymnax', 'jax', 'jaxlib', 'flax', 'optax')}
    print(
        json.dumps(
            dict(
                versions=versions,
                settings=dict(settings, eval_freq=args.steps // args.evals, eval_episodes=n),
                eval_steps=[(i + 1) * (args.steps // args.evals) for i in range(args.evals)],
                greedy_return=[[float(x) for x in row] for row in returns],
                env_steps=[int(s) for s in jax.device_get(ts.global_step)],
            )
        )
    )


if __name__ == '__main__':
    main()
