"""Run the IV-RL authors' own bsuite code (montrealrobotics/iv_rl, PyTorch) as an oracle beside our IV-DQN (issue 43).

Nothing of theirs is copied here: every run executes their `bsuite/main.py` unchanged, from the tree that `setup.sh`
exported (default /work/oracles/iv_rl_src), in the oracle venv (default /work/venvs/iv_rl_oracle). This driver only
 * puts their tree on `sys.path` and stands in a no-op `wandb` module (their code imports wandb; every call is commented
   out in the cartpole path),
 * replaces `bsuite.load_and_record` (their main.py calls it for the training env, then for the test env) so that both
   environments are seeded from the run's seed (their sweep leaves bsuite's seed None) and both log a bsuite CSV row
   for *every* episode (bsuite logs on a logarithmic episode grid, which cannot give a 100-episode moving average),
 * passes their own command-line flags (`--model --env --net_seed --num_episodes --save_path`, and the overrides below),
 * optionally stops a run once the 100-episode mean return reaches the threshold (their loop has no such stop; it runs
   `--num_episodes`, default 300 in their main.py).

Each (agent, seed) runs in a fresh child interpreter (their main.py parses flags and seeds numpy at import). Output,
per run: OUT/seed_<s>/<bsuite env>/<their folder name>/bsuite_id_-_<id>.csv (the greedy *test* episode after each
training episode: the CSV their main.py writes), .../train/bsuite_id_-_<id>.csv (the training episodes, which their
main.py only printed), .../run.json (settings, wall-clock seconds per episode, why it stopped) and .../log.txt.

    python run_iv_rl.py --out /tmp/ivrl --agents BootstrapDQN IV_DQN --seeds 0 1 2 --episodes 300
    python run_iv_rl.py --out /tmp/ivrl --preset ours-hparams --bsuite-id cartpole_noise/8    # noise scale 1 as ours
"""

import argparse
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SRC = Path(os.environ.get('IV_RL_SRC', '/work/oracles/iv_rl_src'))
DEFAULT_VENV = Path(os.environ.get('IV_RL_VENV', '/work/venvs/iv_rl_oracle'))

# Paper names -> their main.py's --model (bsuite/main.py:89-108):
#   BootstrapDQN -> agent_bootdqn.BootstrapDQN (Bootstrapped DQN, the Table 1 baseline)
#   IV_DQN       -> agent_bootdqn.IV_LakshmiBootDQN (var-ensemble + BIV + loss attenuation, "IV-DQN" in Table 1;
#                   their README lists IV_DQN for `run_bsuite.sh cartpole_noise`; IV_VarEnsembleDQN is the same class)
#   others runnable by their main.py: DQN, VarDQN, IV_VarDQN, EnsembleDQN, VarEnsembleDQN (L2 + var-ensemble, Fig. 3),
#   IV_EnsembleDQN, IV_BootstrapDQN (BIV + sampled ensemble, Fig. 3), SunriseDQN, IV_VarEnsembleDQN.
MODELS = (
    'DQN',
    'VarDQN',
    'IV_VarDQN',
    'BootstrapDQN',
    'EnsembleDQN',
    'VarEnsembleDQN',
    'IV_EnsembleDQN',
    'IV_BootstrapDQN',
    'SunriseDQN',
    'IV_VarEnsembleDQN',
    'IV_DQN',
)

# Presets: flags handed to their main.py on top of its defaults.
#  as-run: nothing. This is what their scripts/run_bsuite.sh does for cartpole_noise: main.py's lookup of
#          config['cartpole_noise'] fails (bsuite/config.py has only a 'cartpole' key) and is silently skipped
#          (main.py:78-83), so the argparse defaults hold: batch 64, masks off (1.0), constant xi = 5 (dynamic_xi
#          False), loss-attenuation weight 1. The folder names of their committed logs
#          (runs/cartpole_noise/*_bs_64_mask_1.0_mebs1.000000_lossatt_1.0) show these settings.
#  ours-hparams: the knobs their code exposes, set as our iv_dqn/boot_dqn cartpole_noise preset
#          (uncertain_rl/agents/iv_dqn.py IV_RL_CARTPOLE, BIVConfig defaults): masks 0.5 (their main.py then samples
#          64 / 0.5 = 128, main.py:73-74, as our batch_size 128), xi by MEBS ratio 0.99, loss attenuation 10. Only the
#          knobs: their n-step bootstrap, loss reduction, missing priors etc. stay theirs (see README).
PRESETS = {
    'as-run': [],
    'ours-hparams': [
        '--mask_prob',
        '0.5',
        '--dynamic_xi',
        'True',
        '--minimal_eff_bs_ratio',
        '0.99',
        '--lossatt_weight',
        '10',
    ],
}
TEST_SEED_OFFSET = 10_000  # the test env's seed: seed + this, so that its reward noise differs from the training env's


class Stop(Exception):
    "Raised from the logging wrapper to end a run once its moving average is reached."


def parse(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument('--out', required=True, help='output folder (one sub-folder per seed)')
    ap.add_argument(
        '--agents', nargs='+', default=['BootstrapDQN', 'IV_DQN'], choices=MODELS, help="their main.py --model names"
    )
    ap.add_argument(
        '--seeds',
        nargs='+',
        type=int,
        default=[0],
        help="run seeds: their --net_seed (numpy, random and the members' torch init) and the env seeds",
    )
    ap.add_argument(
        '--bsuite-id',
        default='cartpole_noise/0',
        help="bsuite id (cartpole_noise/0-3: noise 0.1, 4-7: 0.3, 8-11: 1.0, 12-15: 3.0, 16-19: 10.0); "
        "their committed logs are cartpole_noise/0",
    )
    ap.add_argument(
        '--id-per-seed',
        action='store_true',
        help="use bsuite id <experiment>/<seed> for each seed, as their scripts/run_bsuite.sh loops "
        "`--env cartpole_noise/$seed` (seeds 0-19 then span the five noise scales)",
    )
    ap.add_argument('--episodes', type=int, default=300, help="cap: their --num_episodes (main.py:57 default 300)")
    ap.add_argument(
        '--stop-when',
        default='both',
        choices=('never', 'train', 'test', 'both', 'either'),
        help="stop once the 100-episode mean of these returns reached --threshold (train: the exploring "
        "episodes, test: their greedy vote episode after each)",
    )
    ap.add_argument('--threshold', type=float, default=750.0, help="Table 1's solved score on Cartpole-Noise")
    ap.add_argument('--preset', default='as-run', choices=list(PRESETS))
    ap.add_argument(
        '--env-seed',
        default='run',
        choices=('run', 'none'),
        help="run: train env seeded with the seed, test env with seed+10000; none: unseeded, as their "
        "sweep's seed None",
    )
    ap.add_argument(
        '--net-seed',
        type=int,
        default=None,
        help="fix their --net_seed for every run (their scripts leave the default 42) instead of the seed",
    )
    ap.add_argument(
        '--their-flag',
        nargs=2,
        action='append',
        default=[],
        metavar=('FLAG', 'VALUE'),
        help="any further flag for their main.py, e.g. --their-flag --batch_size 128 (after the preset)",
    )
    ap.add_argument('--src', type=Path, default=DEFAULT_SRC, help="their exported source tree")
    ap.add_argument('--python', default=None, help="the oracle venv's python (default: <venv>/bin/python)")
    ap.add_argument('--threads', type=int, default=1, help="torch / BLAS threads per run")
    ap.add_argument('--one', action='store_true', help=argparse.SUPPRESS)  # child mode: one run
    ap.add_argument('--agent', help=argparse.SUPPRESS)
    ap.add_argument('--seed', type=int, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def their_flags(args, agent, seed, bsuite_id, save_path) -> list:
    flags = [
        '--model',
        agent,
        '--env',
        bsuite_id,
        '--num_episodes',
        str(args.episodes),
        '--net_seed',
        str(seed if args.net_seed is None else args.net_seed),
        '--save_path',
        str(save_path),
    ]
    preset = list(PRESETS[args.preset])
    if '--dynamic_xi' in preset and not agent.startswith('IV_'):  # xi only weighs IV agents' losses: skip the
        i = preset.index('--dynamic_xi')  # Nelder-Mead search (a cost, no effect)
        del preset[i : i + 2]
    flags += preset
    for flag, value in args.their_flag:
        flags += [flag, value]
    return flags


def run_dir_name(flags: list) -> str:
    "The folder their main.py:86 writes to, from the flags as their argparse would read them."
    get = lambda name, default: flags[len(flags) - 1 - flags[::-1].index(name) + 1] if name in flags else default
    model, bs, mask = get('--model', None), int(get('--batch_size', 64)), float(get('--mask_prob', 1.0))
    mebs, la = float(get('--minimal_eff_bs_ratio', 1.0)), float(get('--lossatt_weight', 1))
    if mask < 1.0:
        bs = int(bs / mask)
    return "%s_bs_%d_mask_%.1f_mebs%2f_lossatt_%.1f" % (model, bs, mask, mebs, la)


def moving_mean(x: list, window: int = 100) -> float:
    tail = x[-window:]
    return sum(tail) / len(tail)


def child(args) -> int:
    "Run their bsuite/main.py once, in this interpreter, with the logging and seeding hooks."
    import runpy

    os.environ.setdefault('OMP_NUM_THREADS', str(args.threads))
    bsuite_root = args.src / 'bsuite'
    sys.path[:0] = [str(bsuite_root)]  # what `python bsuite/main.py` puts first: their vendored bsuite,
    sys.modules.setdefault('wandb', types.SimpleNamespace(log=lambda *a, **k: None, init=lambda *a, **k: None))
    import torch

    torch.set_num_threads(args.threads)
    import bsuite  # theirs (bsuite/bsuite, 0.3.5 + their models)
    from bsuite import sweep
    from bsuite.logging import csv_logging
    from bsuite.utils import wrappers

    assert Path(bsuite.__file__).resolve().is_relative_to(bsuite_root.resolve()), bsuite.__file__

    seed = args.seed
    bsuite_id = f"{args.bsuite_id.split('/')[0]}/{seed}" if args.id_per_seed else args.bsuite_id
    save_root = Path(args.out) / f'seed_{seed}'
    flags = their_flags(args, args.agent, seed, bsuite_id, save_root)
    run_dir = save_root / bsuite_id.split('/')[0] / run_dir_name(flags)
    run_dir.mkdir(parents=True, exist_ok=True)
    record = dict(
        agent=args.agent,
        seed=seed,
        bsuite_id=bsuite_id,
        settings=dict(sweep.SETTINGS[bsuite_id]),
        their_argv=['bsuite/main.py'] + flags,
        preset=args.preset,
        env_seed=args.env_seed,
        stop_when=args.stop_when,
        threshold=args.threshold,
        torch=torch.__version__,
        threads=args.threads,
        src=str(args.src),
        commit=(args.src / '.iv_rl_commit').read_text().strip() if (args.src / '.iv_rl_commit').exists() else None,
    )
    returns = {'train': [], 'test': []}
    ends, t0 = [], time.perf_counter()
    state = dict(steps=0)

    class EveryEpisode(wrappers.Logging):
        "bsuite's Logging wrapper, logging every episode, remembering returns and checking the stop rule."

        def __init__(self, env, logger, role):
            super().__init__(env, logger, log_every=True)
            self.role = role

        def _track(self, timestep):
            super()._track(timestep)
            if self.role == 'train' and not timestep.first():
                state['steps'] += 1
            if not timestep.last():
                return
            returns[self.role].append(self._last_return)
            if self.role == 'train':
                ends.append(time.perf_counter() - t0)
            if self.role == 'test' and solved():
                raise Stop

        def _log_bsuite_data(self):
            self._last_return = self._episode_return
            super()._log_bsuite_data()

    def solved() -> bool:
        "Checked after each test episode, i.e. after each (training episode, test episode) pair of their loop."
        ok = {k: len(v) > 0 and moving_mean(v) >= args.threshold for k, v in returns.items()}
        return {
            'never': False,
            'train': ok['train'],
            'test': ok['test'],
            'both': ok['train'] and ok['test'],
            'either': ok['train'] or ok['test'],
        }[args.stop_when]

    def load_and_record(bsuite_id, save_path, logging_mode='csv', overwrite=False):
        "Stands in for bsuite.load_and_record: main.py:124 asks for the training env first, main.py:130 the test env."
        role = 'train' if logging_mode == 'terminal' else 'test'
        kwargs = dict(sweep.SETTINGS[bsuite_id])
        if args.env_seed == 'run' and 'seed' in kwargs:
            kwargs['seed'] = seed + (TEST_SEED_OFFSET if role == 'test' else 0)
        env = bsuite.load(bsuite_id.split('/')[0], kwargs)
        folder = Path(save_path) if role == 'test' else Path(save_path) / 'train'
        record[f'{role}_env_kwargs'] = kwargs
        return EveryEpisode(env, csv_logging.Logger(bsuite_id, str(folder), overwrite=True), role)

    bsuite.load_and_record = load_and_record
    sys.argv = ['bsuite/main.py'] + flags
    stop = 'cap'
    try:
        runpy.run_path(str(bsuite_root / 'main.py'), run_name='__main__')
    except Stop:
        stop = 'solved'
    seconds = time.perf_counter() - t0
    per_episode = [b - a for a, b in zip([0.0] + ends[:-1], ends)]
    record.update(
        stop=stop,
        episodes=len(returns['train']),
        train_steps=state['steps'],
        seconds=seconds,
        seconds_per_episode=seconds / max(1, len(returns['train'])),
        seconds_per_1000_train_steps=1000 * seconds / max(1, state['steps']),
        train_episode_seconds=per_episode,
        train_returns=returns['train'],
        test_returns=returns['test'],
        train_ma100_last=moving_mean(returns['train']) if returns['train'] else None,
        test_ma100_last=moving_mean(returns['test']) if returns['test'] else None,
    )
    (run_dir / 'run.json').write_text(json.dumps(record, indent=1))
    print(
        f"\n[oracle] {args.agent} seed {seed} {bsuite_id}: {record['episodes']} episodes, "
        f"{state['steps']} training steps, {seconds:.1f} s ({record['seconds_per_episode']:.2f} s/episode), "
        f"stop: {stop}; {run_dir}",
        flush=True,
    )
    return 0


def main(argv=None) -> int:
    args = parse(argv)
    if args.one:
        return child(args)
    python = args.python or str(DEFAULT_VENV / 'bin' / 'python')
    if not (args.src / 'bsuite' / 'main.py').exists():
        sys.exit(f"{args.src}/bsuite/main.py is missing: run setup.sh <mirror git dir> first")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for agent in args.agents:
        for seed in args.seeds:
            log = out / f'log_{agent}_seed_{seed}.txt'
            cmd = [python, str(Path(__file__).resolve()), '--one', '--agent', agent, '--seed', str(seed)]
            cmd += [a for a in (argv if argv is not None else sys.argv[1:])]
            env = dict(
                os.environ,
                OMP_NUM_THREADS=str(args.threads),
                MKL_NUM_THREADS=str(args.threads),
                PYTHONHASHSEED='0',
                PYTHONDONTWRITEBYTECODE='1',
            )
            print(f"[oracle] {agent} seed {seed} -> {log}", flush=True)
            with open(log, 'w') as fh:
                rc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=str(args.src)).returncode
            tail = log.read_text().splitlines()[-1:] if log.exists() else []
            print(f"[oracle]   rc {rc}: {tail[0] if tail else ''}", flush=True)
            failed += rc != 0
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
