"""Does BIV weighting change the update in the authors' bsuite code? One learning step of their IV agent, against the
same agent with uniform weights, from the same parameters on the same batch (run in the oracle venv).

Their `BootstrapDQN.calc_loss` (bsuite/bsuite/models/agent_bootdqn.py:180-195) multiplies per-sample losses of shape
[B_m] by weights of shape [B_m, 1] and sums: broadcasting makes that (sum of weights) x (sum of losses), and the
weights are normalised to sum 1, so any normalised weighting gives the plain sum of squared errors. This script shows
it on their classes: the parameters after the step agree to float precision, while the same step with the weights
flattened to [B_m] (what the weighting intends) differs.

    /work/venvs/iv_rl_oracle/bin/python check_biv_weights.py [--src /work/oracles/iv_rl_src] [--model IV_DQN]
"""

import argparse
import copy
import os
import sys
import types
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--src', type=Path, default=Path(os.environ.get('IV_RL_SRC', '/work/oracles/iv_rl_src')))
ap.add_argument('--model', default='IV_DQN', choices=('IV_DQN', 'IV_BootstrapDQN'))
ap.add_argument('--xi', type=float, default=5.0, help='their --xi (main.py:53 default 5)')
ap.add_argument('--steps', type=int, default=600, help='environment steps to fill replay and train a little first')
args = ap.parse_args()

sys.path[:0] = [str(args.src / 'bsuite')]
sys.modules.setdefault('wandb', types.SimpleNamespace(log=lambda *a, **k: None))
import numpy as np  # noqa: E402 (their code on sys.path first)
import torch  # noqa: E402
import bsuite  # noqa: E402
from bsuite.models import agent_bootdqn as ab  # noqa: E402

torch.set_num_threads(1)
np.random.seed(0)
cls = {'IV_DQN': ab.IV_LakshmiBootDQN, 'IV_BootstrapDQN': ab.IV_BootstrapDQN}[args.model]
opt = types.SimpleNamespace(net_seed=0, lossatt_weight=1.0)
qnet_settings = {
    'layers_sizes': [50],
    'batch_size': 64,
    'noisy_nets': False,
    'distributional': False,
    'vmin': 0,
    'vmax': 1000,
    'number_atoms': 51,
    'drop_prob': 0,
}
settings = {
    'batch_size': 64,
    'epsilon_start': 0.05,
    'epsilon_decay': 0.5,
    'epsilon_min': 0.05,
    'gamma': 0.99,
    'buffer_size': 2**16,
    'lr': 1e-3,
    'qnet_settings': qnet_settings,
    'start_optimization': 64,
    'update_qnet_every': 2,
    'update_target_every': 50,
    'ddqn': False,
    'n_steps': 4,
    'duelling_dqn': False,
    'prioritized_buffer': False,
    'alpha': 0.6,
    'beta0': 0.4,
    'beta_increment': 1e-6,
    'dynamic_xi': False,
    'minimal_eff_bs_ratio': 1.0,
    'xi': args.xi,
    'mask_prob': 0.5,
}  # main.py:139-148, masks on to be general
env = bsuite.load('cartpole_noise', dict(noise_scale=1.0, seed=0))
agent = cls(
    opt,
    env.action_spec(),
    env.observation_spec(),
    num_ensemble=5,
    net_seed=0,
    device=torch.device('cpu'),
    settings=settings,
)
ts = env.reset()
for _ in range(args.steps):  # their loop (experiment.py:53-61): act, step, update
    a = agent.select_action(ts)
    nts = env.step(a)
    agent.update(ts, a, nts)
    ts = env.reset() if nts.last() else nts

batch = agent.memory.sample_batch(settings['batch_size'])
s0, a0, r, d, s1, _, _, idx, w, masks = batch


def step(weighting):
    ag = copy.deepcopy(agent)
    if weighting == 'uniform':
        ag.get_mse_weights = lambda v: torch.ones(v.size()) / v.size()[0]
    if weighting == 'biv, flattened':  # the weights as a vector, so that w_k multiplies loss_k
        iv = ag.get_mse_weights
        ag.get_mse_weights = lambda v: iv(v).reshape(-1)
    ag.optimization_step(s0, a0, r, d, s1, idx, w, masks)
    return torch.cat([p.detach().flatten() for q in ag.qnets for p in q.parameters()])


before = torch.cat([p.detach().flatten() for q in agent.qnets for p in q.parameters()])
theirs, uniform, flat = step('biv'), step('uniform'), step('biv, flattened')
move = (theirs - before).abs().max().item()
print(f"{args.model}, xi = {args.xi}: largest parameter change in the step {move:.3e}")
print(f"  their BIV weights against uniform weights: max |difference| {(theirs - uniform).abs().max().item():.3e}")
print(f"  BIV weights flattened against uniform:     max |difference| {(flat - uniform).abs().max().item():.3e}")
same = torch.allclose(theirs, uniform, rtol=0, atol=1e-4 * max(move, 1e-12))  # float rounding of sum(w) = 1
print("  -> their BIV weighting is a no-op in this step" if same else "  -> their BIV weighting changes the step")
