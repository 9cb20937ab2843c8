"""DQN on MinAtar Breakout: our compiled DQN against rejax's DQN, environment steps per second, in one run.

Ours: the registered `dqn` agent on `minatar_breakout` (gymnax's MinBreakout behind our `envs.minatar.MinAtar`:
sticky actions 0.1, all six actions) through `experiments.run`, the whole training one compiled chunk on one device,
`--seeds` vmapped seeds (keys `split(PRNGKey(0), seeds)`), no evaluations or snapshots; a budget of `--steps`
environment steps per seed (`Experiment(steps=...)`: every seed takes exactly that many steps, episodes of any
length). rejax: rejax 0.1.3's own DQN on gymnax's `MinBreakout(use_minimal_action_set=False)` (six actions, no sticky
actions), run in its own venv by `oracles/rejax/time_dqn.py` (`jax.jit(jax.vmap(algo.train))` over the same keys),
the same steps and seed counts. Both sides: the same network (MinAtar's: a 3x3 convolution of 16 channels, valid
padding, ReLU, then `--hidden` ReLU units, then one output per action; rejax's MLP replaced by it, since rejax's DQN
has no convolution), batch, replay, learning start, one gradient step per environment step, hard target copies,
Adam's learning rate, ε schedule, vanilla (not double) DQN targets, no gradient clipping, one environment per seed.
Timings exclude compilation (reported separately): ours `RunResult.run_seconds`, rejax's the call of the
ahead-of-time compiled function. The runs alternate (ours, rejax's, per seed count) so that drift in a shared
machine's load falls on both. Results go to `results/minatar_dqn_speed/result.json`.

    bash benchmarks/oracles/rejax/setup.sh                  # once: rejax's venv (/work/venvs/rejax)
    python benchmarks/minatar_dqn_speed.py [--steps 6000] [--seeds 1 4] [--no-conv] [--exact-env] [--conv-probe]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import jax

from bsuite_speed import cpu_kind
from uncertain_rl.agents.dqn import DQNConfig
from uncertain_rl.envs.minatar import MinAtar
from uncertain_rl.experiments import Experiment, run, split_keys

HERE = Path(__file__).resolve().parent
REJAX_SCRIPT = HERE / 'oracles' / 'rejax' / 'time_dqn.py'
OUT = HERE / 'results' / 'minatar_dqn_speed' / 'result.json'


def load() -> list:
    "The 1, 5 and 15 minute load averages (another job sharing the cores shows here)."
    try:
        return [float(x) for x in open('/proc/loadavg').read().split()[:3]]
    except OSError:
        return []


def versions() -> dict:
    import importlib.metadata as md

    return {p: md.version(p) for p in ('uncertain_rl', 'jax', 'jaxlib', 'flax', 'optax', 'gymnax')}


SHARED = ('hidden', 'batch', 'buffer', 'learning_starts', 'target_period', 'lr', 'eps_end', 'exploration_fraction')


def add_shared_arguments(ap: argparse.ArgumentParser):
    "The settings both sides share (`SHARED`, as `oracles/rejax/time_dqn.py` takes them) and rejax's Python."
    ap.add_argument('--hidden', type=int, nargs='+', default=[128], help='hidden units after the convolution')
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--buffer', type=int, default=100_000, help='replay capacity')
    ap.add_argument('--learning-starts', type=int, default=1000, help='uniform actions, no learning, until then')
    ap.add_argument('--target-period', type=int, default=1000, help='steps between hard target copies')
    ap.add_argument('--lr', type=float, default=2.5e-4, help="Adam's learning rate")
    ap.add_argument('--eps-end', type=float, default=0.05)
    ap.add_argument('--exploration-fraction', type=float, default=0.1, help='ε falls 1 -> eps-end over this share')
    ap.add_argument('--rejax-python', default='/work/venvs/rejax/bin/python')


def provenance(benchmark: str, cpu: str, before: list, rejax_versions) -> dict:
    "A result's first fields: the benchmark, the machine, its load before and now, both sides' versions."
    return dict(
        benchmark=benchmark,
        cpu=cpu,
        cores=os.cpu_count(),
        load_average_before=before,
        load_average_after=load(),
        versions=dict(ours=versions(), rejax=rejax_versions),
    )


def our_config(args) -> DQNConfig:
    "Our DQN with the shared settings (`args`)."
    return DQNConfig(
        hidden_sizes=tuple(args.hidden),
        batch_size=args.batch,
        replay_capacity=args.buffer,
        min_replay_size=args.learning_starts,
        sgd_period=1,  # one gradient step per environment step once learning starts
        sgd_steps_per_update=1,
        target_update_period=args.target_period,  # learning steps between hard target copies
        learning_rate=args.lr,
        discount=0.99,
        epsilon_start=1.0,
        epsilon=args.eps_end,
        epsilon_decay_steps=int(args.exploration_fraction * args.steps),
        uniform_warmup=True,  # uniform actions while replay fills (rejax: until fill_buffer steps)
        kernel_init='lecun_normal',  # flax's default, rejax's
        double_q=False,
        max_grad_norm=None,
        loss='squared',
    )


class FlatMinAtar(MinAtar):
    "MinAtar with its image observations declared flat: our agents then build their MLP alone, no convolution."

    image_observations = False


def ours(config: DQNConfig, env, seeds: int, steps: int) -> dict:
    "One timed run of our DQN on `env` (a registered name or an environment), `seeds` vmapped seeds."
    res = run(
        Experiment(
            config,
            env,
            seeds=seeds,
            keys=split_keys(seeds),
            eval_every=0,
            snapshots=0,
            num_chunks=1,
            devices=1,
            steps=steps,
        )
    )
    episodes = [int(e) for e in res.episodes]
    return dict(
        seeds=seeds,
        compile_seconds=res.compile_seconds,
        run_seconds=res.run_seconds,
        env_steps_per_seed=[steps] * seeds,  # a step budget: each seed takes exactly `steps`
        episodes_per_seed=episodes,
        mean_return_last_100=[r['mean_return_last_100'] for r in res.rows],
        steps_per_second_per_seed=steps / res.run_seconds,
        steps_per_second_aggregate=seeds * steps / res.run_seconds,
    )


def shared_flags(args) -> list:
    "The shared settings (`SHARED`) as the rejax scripts' command-line flags."
    flags = []
    for name in SHARED:
        value = getattr(args, name)
        flags += [f"--{name.replace('_', '-')}", *map(str, value if isinstance(value, list) else [value])]
    return flags


def run_rejax(cmd: list) -> dict:
    "The JSON line a rejax script (`cmd`, in rejax's venv, on the CPU) prints last; its error where it fails."
    env = dict(os.environ, JAX_PLATFORMS='cpu', PYTHONWARNINGS='ignore')
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        sys.exit(f"rejax's run failed ({' '.join(cmd)}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def rejax(args, seeds: int, stock: bool = False) -> dict:
    "rejax's timing JSON for `seeds` vmapped seeds, from its own venv."
    cmd = [args.rejax_python, str(REJAX_SCRIPT), '--steps', str(args.steps), '--seeds', str(seeds), *shared_flags(args)]
    return run_rejax(cmd + (['--stock-network'] if stock else []))


def conv_probe(batch: int, n: int = 500) -> dict:
    """Microseconds per gradient of MinAtar's 3x3x16 convolution's kernel on a batch of 10x10x4 images, inside a
    compiled loop (`lax.scan`, as both trainings run) and as one jitted call: `lax.conv_general_dilated` (flax's
    `nn.Conv`, both sides), and the same convolution as nine shifted slices and one matmul."""
    import jax.numpy as jnp

    x = jnp.ones((batch, 10, 10, 4))
    k = jnp.full((3, 3, 4, 16), 0.1)
    conv = lambda k, x: jax.lax.conv_general_dilated(x, k, (1, 1), 'VALID', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
    slices = lambda k, x: (
        jnp.concatenate([x[:, i : i + 8, j : j + 8, :] for i in range(3) for j in range(3)], -1) @ k.reshape(36, 16)
    )
    out = {}
    for name, fn in (('lax.conv', conv), ('slices+matmul', slices)):
        grad = jax.grad(lambda k: (fn(k, x) ** 2).sum())
        loop = jax.jit(lambda k: jax.lax.scan(lambda k, _: (k - 1e-6 * grad(k), None), k, None, n)[0])
        loop(k).block_until_ready()
        t = time.perf_counter()
        loop(k).block_until_ready()
        in_loop = (time.perf_counter() - t) / n * 1e6
        one = jax.jit(grad)
        one(k).block_until_ready()
        t = time.perf_counter()
        for _ in range(n):
            one(k).block_until_ready()
        out[name] = dict(in_scan_us=in_loop, one_call_us=(time.perf_counter() - t) / n * 1e6)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=6000, help='environment steps per seed (both sides)')
    ap.add_argument('--seeds', type=int, nargs='+', default=[1, 4], help='vmapped seed counts to time')
    add_shared_arguments(ap)
    ap.add_argument(
        '--no-conv', action='store_true', help="also both without the convolution (rejax's own MLP, ours flat), 1 seed"
    )
    ap.add_argument('--exact-env', action='store_true', help='also ours without sticky actions (as gymnax), 1 seed')
    ap.add_argument('--conv-probe', action='store_true', help="time the convolution's gradient alone")
    ap.add_argument('--out', type=Path, default=OUT)
    args = ap.parse_args()
    if not Path(args.rejax_python).exists():
        sys.exit(f"{args.rejax_python} not found: run `bash benchmarks/oracles/rejax/setup.sh` first")

    cpu, before = cpu_kind(), load()
    print(
        f"MinAtar Breakout, DQN: {args.steps:,} environment steps per seed; {cpu} ({os.cpu_count()} cores), "
        f"{jax.devices()[0].platform}, jax {jax.__version__}; load average {before}"
    )
    config = our_config(args)
    rows, runs, peer = [], [], {}
    for seeds in args.seeds:
        o = ours(config, 'minatar_breakout', seeds, args.steps)
        r = peer = rejax(args, seeds)
        rows.append((seeds, o, r['runs'][0]))
        ratio = o['steps_per_second_aggregate'] / r['runs'][0]['steps_per_second_aggregate']
        runs.append(dict(seeds=seeds, ours=o, rejax=r['runs'][0], ratio_ours_over_rejax=ratio))
        print(
            f"  {seeds} seed(s): ours {o['steps_per_second_aggregate']:.0f} steps/s, "
            f"rejax {r['runs'][0]['steps_per_second_aggregate']:.0f} steps/s",
            flush=True,
        )
    extra = {}
    if args.exact_env:
        extra['ours_no_sticky_1_seed'] = ours(config, MinAtar('breakout', sticky_action_prob=0.0), 1, args.steps)
    if args.no_conv:
        extra['ours_no_conv_1_seed'] = ours(config, FlatMinAtar('breakout'), 1, args.steps)
        extra['rejax_stock_mlp_1_seed'] = rejax(args, 1, stock=True)['runs'][0]
    if args.conv_probe:
        extra['conv_probe'] = dict(batch=args.batch, **conv_probe(args.batch))

    print(
        f"\n{'seeds':>5}  {'ours steps/s':>13}{'per seed':>10}{'compile s':>11}  {'rejax steps/s':>14}"
        f"{'per seed':>10}{'compile s':>11}  {'ours/rejax':>10}"
    )
    for seeds, o, r in rows:
        print(
            f"{seeds:>5}  {o['steps_per_second_aggregate']:>13.0f}{o['steps_per_second_per_seed']:>10.0f}"
            f"{o['compile_seconds']:>11.1f}  {r['steps_per_second_aggregate']:>14.0f}"
            f"{r['steps_per_second_per_seed']:>10.0f}{r['compile_seconds']:>11.1f}"
            f"  {o['steps_per_second_aggregate'] / r['steps_per_second_aggregate']:>9.2f}x"
        )
    if 'ours_no_sticky_1_seed' in extra:
        print(
            f"ours without sticky actions, 1 seed: {extra['ours_no_sticky_1_seed']['steps_per_second_aggregate']:.0f}"
            f" steps/s"
        )
    if args.no_conv:
        o, r = extra['ours_no_conv_1_seed'], extra['rejax_stock_mlp_1_seed']
        print(
            f"no convolution (MLP {tuple(args.hidden)} on the flat image), 1 seed: ours "
            f"{o['steps_per_second_aggregate']:.0f} steps/s, rejax {r['steps_per_second_aggregate']:.0f} steps/s, "
            f"{o['steps_per_second_aggregate'] / r['steps_per_second_aggregate']:.2f}x"
        )
    if 'conv_probe' in extra:
        for name, t in extra['conv_probe'].items():
            if name != 'batch':
                print(
                    f"conv kernel gradient, batch {args.batch}, {name}: {t['in_scan_us']:.0f} us in a compiled loop, "
                    f"{t['one_call_us']:.0f} us as one jitted call"
                )

    result = dict(
        **provenance('minatar_dqn_speed', cpu, before, peer.get('versions')),
        steps=args.steps,
        settings=dict(
            ours=dict(
                agent='dqn',
                env="minatar_breakout: MinAtar('breakout', sticky_action_prob=0.1, minimal_actions=False), 6 actions",
                network=f'conv 3x3x16 valid ReLU, then ReLU {tuple(args.hidden)}, then 6 outputs',
                config=asdict(config),
            ),
            rejax=peer.get('settings'),
        ),
        runs=runs,
        **extra,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + '\n')
    print(f"wrote {args.out}")


if __name__ == '__main__':
    main()
