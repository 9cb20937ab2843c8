"""PE-DQN (notebook `51_pe_dqn`): every ablation and bonus mode trains, the command line and the bsuite bridge run it,
the viewer's signals are recorded, and the issue's learning target: Deep Sea 10 in 3 of 3 seeds within 500 episodes.

- default run: the ablations and modes on Deep Sea 6 (finite losses, greedy evaluation), the command line with
  snapshots, the bridge, and a learning test: seed 0 solves Deep Sea 10 within 400 episodes (bsuite's rule; about
  45 s on 2 cores).
- slow: the issue's target (3 of 3 seeds within 500 episodes, about 2.5 minutes on 2 cores), R9, bsuite's catch/0,
  bandit/0 and deep_sea/0 through the bridge with their learning thresholds.
"""

import json

import jax
import numpy as np
import pytest

from uncertain_rl.agents.pe_dqn import PEDQNConfig, make_pe_dqn
from uncertain_rl.app.cli import main
from uncertain_rl.envs.bsuite import load_bsuite, run_dm_env
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import train, TrainConfig, greedy_returns
from uncertain_rl.base import gymnax_spec
from uncertain_rl.rundir import load_snapshots as load_run

SMALL = dict(hidden_sizes=(32,), num_atoms=11, batch_size=32, min_replay_size=32, v_min=-1.0, v_max=1.0)


@pytest.mark.parametrize(
    'changes',
    [
        dict(),
        dict(ablation='ind'),
        dict(ablation='c51c51'),
        dict(ablation='qrqr'),
        dict(bonus_mode='scalar_mse'),
        dict(disagreement='projected'),
        dict(beta_decay_episodes=20, beta_final=0.0),
    ],
)
@pytest.mark.long
def test_variants_train_and_evaluate(changes):
    env = DeepSea(6, mapping_seed=42)
    agent = make_pe_dqn(PEDQNConfig(**SMALL, **changes), gymnax_spec(env))
    state, logs = jax.jit(train(TrainConfig(env, agent, 300, 50)).run)(jax.random.PRNGKey(0))
    for k in ('loss', 'value_loss', 'bonus_loss', 'w_avg', 'w_act', 'bonus_act', 'beta', 'target_clipped'):
        assert np.isfinite(np.asarray(logs[k])).all(), k
    assert (np.asarray(logs['w_act']) >= 0).all()
    if changes.get('ablation') == 'ind':
        assert (np.asarray(logs['bonus_loss']) == 0).all()
    else:
        assert np.asarray(logs['bonus_loss'])[-10:].min() > 0
    beta = np.asarray(logs['beta'])
    if 'beta_decay_episodes' in changes:
        assert beta[0] == 5.0 and beta[-1] == 0.0 and (np.diff(beta) <= 0).all()
    else:
        assert (beta == 5.0).all()
    ret = greedy_returns(env, agent, state, jax.random.PRNGKey(1), 2, 6, env.default_params)
    assert np.isfinite(np.asarray(ret)).all()


@pytest.mark.long
def test_seeds_and_beta_are_vmappable():
    "Two seeds x two values of β in one vmapped call equal the four single runs."
    env = DeepSea(5, mapping_seed=42)
    agent = make_pe_dqn(PEDQNConfig(**SMALL), gymnax_spec(env))
    run = train(TrainConfig(env, agent, 100, 20)).run
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    betas = np.array([0.0, 5.0], np.float32)
    hp = jax.vmap(lambda b: agent.hparams.replace(beta=b))(np.repeat(betas, 2))
    _, logs = jax.jit(jax.vmap(run))(np.tile(keys, (2, 1)), hp)
    for i, (b, k) in enumerate([(b, k) for b in betas for k in keys]):
        _, single = jax.jit(run)(k, agent.hparams.replace(beta=np.float32(b)))
        np.testing.assert_allclose(np.asarray(logs['loss'])[i], np.asarray(single['loss']), rtol=2e-4, atol=1e-5)


@pytest.mark.long
def test_cli_trains_pe_dqn_with_snapshots_and_options(tmp_path):
    out = tmp_path / 'run'
    assert (
        main(
            [
                'train',
                '--agent',
                'pe_dqn',
                '--size',
                '5',
                '--episodes',
                '30',
                '--seeds',
                '1',
                '--beta',
                '2',
                '--ablation',
                'qrqr',
                '--prior-scale',
                '10',
                '--snapshots',
                '3',
                '--out',
                str(out),
                '--no-progress',
            ]
        )
        == 0
    )
    config = json.loads((out / 'summary.json').read_text())['agent_config']
    assert (config['beta'], config['ablation'], config['prior_scale']) == (2.0, 'qrqr', 10.0)
    assert config['num_atoms'] == 51 and list(config['hidden_sizes']) == [128]  # the default network, on every machine
    run = load_run(out)
    assert {'q_mean', 'w_avg', 'pe_bonus'} <= set(run.snapshots)
    assert np.isfinite(run.snapshots['w_avg']).all()


def test_cli_rejects_bad_pe_dqn_options(tmp_path, capsys):
    assert main(['train', '--agent', 'pe_dqn', '--ablation', 'qu', '--out', str(tmp_path)]) == 2
    assert main(['train', '--agent', 'pe_dqn', '--set', 'v_min=2.0', '--out', str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and 'ablation' in err[0] and 'v_min' in err[1]


@pytest.mark.long
def test_pe_dqn_runs_through_the_bsuite_bridge(tmp_path):
    assert (
        main(
            [
                'train',
                '--agent',
                'pe_dqn',
                '--env',
                'bsuite-python:catch/0',
                '--episodes',
                '3',
                '--seeds',
                '1',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    assert list((tmp_path / 'bsuite' / 'seed_0').glob('*.csv'))


@pytest.mark.slow  # over a minute; CI checks PE-DQN through its golden run (tests/test_golden.py QUICK)
def test_pe_dqn_solves_deep_sea_10_seed_0_within_400_episodes(tmp_path):
    """The default run's learning test, one seed of the target below: what `uncertain-rl train --agent pe_dqn --size 10
    --episodes 400 --seeds 1` trains (CPU profile, seed 0, map 42; β decays over the first 133 episodes), stopped
    once it meets bsuite's rule (bad-episode fraction below 0.9), as the suites stop: the budget is the same, only the
    episodes after solving are not played. Measured with the default QR prior 5: solved at episode 231 (first
    treasure at 197); with Table 4's prior 20 (the default until issue 28): 333 (300)."""
    from uncertain_rl.experiments import Experiment, run

    run(
        Experiment('pe_dqn', 'deep_sea', episodes=400, size=10, seeds=1, snapshots=0, eval_every=0, stop_when='solved'),
        out=tmp_path,
    )
    rows = json.loads((tmp_path / 'summary.json').read_text())['results']
    assert len(rows) == 1 and rows[0]['solved_at'] is not None and rows[0]['solved_at'] <= 400, rows


@pytest.mark.slow
def test_pe_dqn_solves_deep_sea_10_in_3_of_3_seeds(tmp_path):
    """The issue's target, as a user runs it: `uncertain-rl train --agent pe_dqn --size 10 --episodes 500 --seeds 3`
    (CPU profile, seeds 0, 1, 2, map 42): bsuite's rule (bad-episode fraction below 0.9) met in every seed.
    Measured (QR prior 5): solved at episodes 222, 281 and 245 (with prior 20: 355, 428 and 319)."""
    assert (
        main(
            [
                'train',
                '--agent',
                'pe_dqn',
                '--size',
                '10',
                '--episodes',
                '500',
                '--seeds',
                '3',
                '--snapshots',
                '0',
                '--eval-every',
                '0',
                '--out',
                str(tmp_path),
                '--no-progress',
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / 'summary.json').read_text())['results']
    solved = [r['solved_at'] for r in rows]
    assert all(s is not None for s in solved), solved


@pytest.mark.slow
@pytest.mark.parametrize(
    'bsuite_id, episodes, check',
    [
        ('bandit/0', 300, lambda ret: ret[-100:].mean() > 0.8),  # 11 arms, the best pays 1: mostly the best arm
        ('catch/0', 800, lambda ret: ret[-100:].mean() > -0.2),  # random play: -0.6 (sd of a 100-episode mean 0.08);
        # bsuite's catch is unseeded, so runs differ: one
        # measured -0.68 over episodes 1-50, 0.52 over 701-800
        ('deep_sea/0', 600, lambda ret: ret[-50:].mean() > 0.5),
    ],
)  # Deep Sea 10: the treasure most of the time
def test_r9_bsuite_smoke(tmp_path, bsuite_id, episodes, check):
    """Seed 0; the default network, the support [-1, 1] (these three tasks' returns lie in it), β 5 -> 1 over a
    third of the run."""
    env, spec = load_bsuite(bsuite_id, str(tmp_path))
    agent = make_pe_dqn(PEDQNConfig(v_min=-1.0, v_max=1.0, beta_decay_episodes=round(episodes / 3)), spec)
    _, logs = run_dm_env(env, agent, jax.random.PRNGKey(0), num_episodes=episodes)
    ret = np.asarray(logs['episode_return'])
    assert check(ret), [round(float(ret[i : i + 100].mean()), 2) for i in range(0, episodes, 100)]
