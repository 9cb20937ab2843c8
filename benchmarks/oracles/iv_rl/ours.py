"""Our agents on the IV-RL oracle's task, with the settings the authors' code ran: bsuite's cartpole_noise/0 (noise
scale 0.1), seeds 0..S-1, at most 300 episodes, the call stopping once every seed's 100-episode mean of the training
return has reached 750 (the oracle's `--stop-when`; it changes nothing before a seed's Table 1 episode).

    python benchmarks/oracles/iv_rl/ours.py --arm boot --out benchmarks/results/oracles/iv_rl/ours_noise_0.1/boot
    python benchmarks/oracles/iv_rl/ours.py --arm iv_uniform --out .../iv_uniform
    python benchmarks/oracles/iv_rl/ours.py --arm iv --out .../iv

The arms carry every knob of their `bsuite/main.py` defaults (as `scripts/run_bsuite.sh` runs them; README.md's
settings table) that our agents expose: 5 members, two hidden layers of 50, learning rate 1e-3, batch 64 with masks
1.0 (no bootstrap), no prior function, ε = 0.05, learning every 2 steps, a hard target copy every 50 environment
steps, clip 5, 4-step returns, 2^16 replay from 64 items, acting with the live online parameters; IV-DQN with their
λ = 1 and constant ξ = 5.
- `boot`: their `BootstrapDQN`;
- `iv`: their `IV_DQN` as its flags mean it (BIV weights with ξ = 5, loss attenuation λ = 1);
- `iv_uniform`: their `IV_DQN` as their code computes it: their BIV weights do not change the update (README.md,
  finding 1), so uniform weights with the var-ensemble's loss attenuation.
What stays different is in README.md's table (their targets bootstrap with γ, not γ⁴; summed losses; their loss
attenuation's form; Xavier-uniform initialisation; their vote's tie rule).

All seeds run as one compiled, vmapped run (keys PRNGKey(seed)). Writes `summary.json` (atomically, last): the arm,
its configuration, the seconds, and each seed's training returns, from which `compare.py` computes Table 1's episode.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from uncertain_rl.agents.iv_dqn import IV_RL_CARTPOLE

ARMS = dict(boot='boot_dqn', iv='iv_dqn', iv_uniform='iv_dqn')
THEIR_MAIN = dict(  # their bsuite/main.py defaults in our agents' names: IV_RL_CARTPOLE, without masks or priors
    IV_RL_CARTPOLE,
    hidden_sizes=(50, 50),
    learning_rate=1e-3,
    discount=0.99,
    batch_size=64,
    mask_prob=1.0,
    prior_scale=0.0,
    acting_params='current',
)
IV_KNOBS = dict(iv=dict(weighting='biv', xi=5.0, la_weight=1.0), iv_uniform=dict(weighting='uniform', la_weight=1.0))
THRESHOLD = 750.0


def arm_config(arm: str):
    "The arm's agent configuration: their main.py's defaults, and IV-DQN's λ and ξ (or uniform weights)."
    from uncertain_rl import registry

    return registry.agent_config(ARMS[arm], **THEIR_MAIN, **IV_KNOBS.get(arm, {}))


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--arm', required=True, choices=sorted(ARMS))
    ap.add_argument('--noise', type=float, default=0.1, help='reward noise scale (cartpole_noise/0-3: 0.1)')
    ap.add_argument('--seeds', type=int, default=20)
    ap.add_argument('--episodes', type=int, default=300, help='their --num_episodes')
    ap.add_argument('--out', required=True)
    return ap.parse_args(argv)


def all_reached(logs: dict) -> bool:
    "The stop rule: every seed's running 100-episode mean of the training return has reached 750."
    from uncertain_rl.metrics import moving_average_solved_at

    return bool((moving_average_solved_at(logs['episode_return'], THRESHOLD) > 0).all())


def main(argv=None) -> None:
    args = parse(argv)
    import jax.numpy as jnp

    from uncertain_rl.envs.cartpole import CartpoleParams
    from uncertain_rl.experiments import Experiment, run

    out = Path(args.out)
    if (out / 'summary.json').exists():
        print(f'{out} holds a finished run (summary.json): nothing to do')
        return
    config = arm_config(args.arm)
    exp = Experiment(
        config,
        'cartpole_noise',
        episodes=args.episodes,
        seeds=args.seeds,
        env_params=CartpoleParams(jnp.float32(args.noise)),
        eval_every=0,
        snapshots=0,
        freeze_finished=False,
        stop_when=all_reached,
    )
    start = time.perf_counter()
    res = run(exp)
    seconds = time.perf_counter() - start
    returns = np.asarray(res.logs['episode_return'], float).reshape(args.seeds, -1)
    summary = dict(
        args=vars(args),
        agent=ARMS[args.arm],
        config=json.loads(json.dumps(config.__dict__, default=list)),
        seconds=round(seconds, 1),
        returns=[[round(float(x), 6) for x in r if not np.isnan(x)] for r in returns],
    )
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / 'summary.json.tmp'
    tmp.write_text(json.dumps(summary) + '\n')
    tmp.replace(out / 'summary.json')
    played = [len(r) for r in summary['returns']]
    print(f'{args.arm}: {args.seeds} seeds, {min(played)}-{max(played)} episodes, {seconds:.0f} s')


if __name__ == '__main__':
    main()
