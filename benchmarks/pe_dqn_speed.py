"""PE-DQN on Deep Sea 10 against Bootstrapped DQN: ours, and bsuite's own `bsuite.baselines.jax.boot_dqn`, in one run.

PE-DQN updates four distributional models per environment step (QR and C51 value members, QR and C51 bonus members,
K atoms per action each, one fused forward and backward); Bootstrapped DQN updates 20 scalar Q-networks. Episodes per
second per seed: PE-DQN (the default network, `PEDQNConfig()`; and the paper's
network), our Bootstrapped DQN and bsuite's `boot_dqn` (bsuite's defaults for both), and ratios against bsuite's.
Ours run through `experiments.run`, the whole training one compiled chunk on one device (no evaluations or
snapshots); timings exclude compilation (reported separately); bsuite's agent is timed after a warm-up that compiles
it and fills its replay.

    pip install -e ".[dev,benchmark]"      # bsuite's agent needs dm-haiku and rlax
    python benchmarks/pe_dqn_speed.py [--episodes 100] [--bsuite-episodes 40] [--paper]
"""

import argparse

import jax

from boot_dqn_speed import SIZE, bsuite_episodes_per_second, ours
from uncertain_rl.agents.boot_dqn import BootDQNConfig
from uncertain_rl.agents.pe_dqn import PE_DQN_PAPER, PEDQNConfig


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--episodes', type=int, default=100, help='episodes per seed for our agents')
    ap.add_argument('--bsuite-episodes', type=int, default=40)
    ap.add_argument('--paper', action='store_true', help="also time the paper's network (512 units, K = 101)")
    args = ap.parse_args()
    print(f"Deep Sea {SIZE} on {jax.devices()[0].platform} ({jax.device_count()} device), jax {jax.__version__}")
    ref = bsuite_episodes_per_second(args.bsuite_episodes)
    rows = [('bsuite boot_dqn (Haiku, K=20)', ref, None)]
    small = PEDQNConfig()
    cases = [
        ('ours, Bootstrapped DQN (K=20), 1 seed', BootDQNConfig(), 1),
        ('ours, PE-DQN (default network), 1 seed', small, 1),
        ('ours, PE-DQN (default network), 4 seeds', small, 4),
        ('ours, PE-DQN (default network, projected w_1), 1 seed', small.replace(disagreement='projected'), 1),
    ]
    if args.paper:
        cases.append(('ours, PE-DQN (paper: 512, K=101), 1 seed', PEDQNConfig(**PE_DQN_PAPER), 1))
    for name, config, seeds in cases:
        eps, compile_s = ours(config, seeds, args.episodes)
        rows.append((name, eps / seeds, compile_s))
    print(f"{'agent':<46}{'episodes/s per seed':>20}{'vs bsuite':>11}{'compile s':>11}")
    for name, eps, compile_s in rows:
        print(f"{name:<46}{eps:>20.1f}{eps / ref:>10.2f}x{'-' if compile_s is None else f'{compile_s:.1f}':>11}")
    pe = rows[2][1]
    print(f"pe_dqn/bsuite boot_dqn episodes-per-second ratio: {pe / ref:.2f}")
    print(f"pe_dqn/our boot_dqn episodes-per-second ratio: {pe / rows[1][1]:.2f}")


if __name__ == '__main__':
    main()
