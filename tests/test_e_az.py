"""E-AZ, AZ and AZ + UBE on Deep Sea with the true model (notebook `62_e_az`): short runs of every mode (finite,
compiled once for all seeds, vmapped seeds equal separate runs), the command line (and its one-line exit 2), the
viewer's signals, and learning: Deep Sea 10 (fast) and the issue's target R2 on Deep Sea 20 (marked slow).

Seeds are PRNGKey(0 .. n-1), action map 42 (the command line's default). Measured (2 CPU cores, 5 seeds each):
- N = 14, 4,200 steps (300 episodes): E-AZ first treasure in episodes 28-84 and solved (bsuite's rule) at 35-127 in
  every seed; AZ never finds it. Thresholds: E-AZ finds and solves in >= 4 of 5, AZ finds in <= 1 of 5.
- N = 20, 20,000 steps (R2, slow): E-AZ first treasure 208-256, solved at 287-353 in every seed; AZ never finds it.
  Same thresholds.
(At N = 10 AZ is no fair contrast: it found the treasure in 2 of 5 seeds, helped by the zero-initialised reward table,
which makes untried moves look better than tried right moves of cost -0.01/N.)
"""

import jax
import numpy as np
import pytest

from uncertain_rl.agents.e_az import EAZ_MODES, make_e_az
from uncertain_rl.registry import agent_config
from uncertain_rl.app.cli import main
from uncertain_rl.envs.deep_sea import DeepSea
from uncertain_rl.loops import TrainConfig, run_chunked, train
from uncertain_rl.base import gymnax_spec
from uncertain_rl.metrics import first_treasure_episode, solved_at
from uncertain_rl.rundir import load_snapshots as load_run


def _run(mode, size, steps, seeds, **overrides):
    env = DeepSea(size, mapping_seed=42)
    agent = make_e_az(agent_config(mode, **overrides), gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=steps, max_episodes=steps // size))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(seeds))
    return run, keys, run_chunked(run, keys, num_chunks=2, progress=False)


@pytest.mark.parametrize('mode', EAZ_MODES)
@pytest.mark.long
def test_modes_run_finite_and_vmapped_seeds_equal_single_runs(mode):
    run, keys, res = _run(mode, 6, 6 * 30, 2, simulations=8)
    for k in ('root_value', 'root_std', 'explorer'):
        assert np.isfinite(res.logs[k]).all(), k
    assert res.compile_seconds > 0 and (res.episodes == 30).all()
    np.testing.assert_array_equal(np.asarray(res.agent_state.counts).sum((1, 2, 3)), [180, 180])
    single = jax.jit(run.run)
    for i in range(2):
        state, logs = single(keys[i])
        np.testing.assert_array_equal(np.asarray(state.counts), np.asarray(res.agent_state.counts)[i])
        np.testing.assert_allclose(np.asarray(logs['episode_return']), res.logs['episode_return'][i], atol=1e-6)


def test_whole_run_compiles_once():
    "Two chunks of one compiled scan: the step function is traced once, not once per step or seed."
    env = DeepSea(5, mapping_seed=42)
    agent = make_e_az(agent_config('e_az', simulations=4), gymnax_spec(env))
    traces = []
    act = agent.act
    counted = agent._replace(act=lambda *a: (traces.append(1), act(*a))[1])
    run = train(TrainConfig(env, counted, num_steps=100, max_episodes=20))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(3))
    run_chunked(run, keys, num_chunks=4, progress=False)
    assert len(traces) <= 3, len(traces)  # init's metric probe, the compiled chunk (and its abstract evaluation)


@pytest.mark.long
def test_cli_trains_e_az_with_snapshots(tmp_path, capsys):
    "E-AZ through the command line (AZ shares its code and is trained through the registry in the learning test)."
    for agent in ('e_az',):
        out = tmp_path / agent
        assert (
            main(
                [
                    'train',
                    '--agent',
                    agent,
                    '--size',
                    '5',
                    '--steps',
                    '200',
                    '--seeds',
                    '2',
                    '--simulations',
                    '8',
                    '--snapshots',
                    '2',
                    '--eval-every',
                    '0',
                    '--out',
                    str(out),
                    '--no-progress',
                ]
                + (['--beta', '3'] if agent == 'e_az' else [])
            )
            == 0
        )
        text = capsys.readouterr().out
        assert 'treasure' in text and 'solved' in text
        run = load_run(out)
        assert {'root_value_std', 'root_q_std', 'search_visits', 'ube'} <= set(run.snapshots)
        assert run.snapshots['search_visits'].sum(-1).max() == 8


@pytest.mark.parametrize(
    'args, word',
    [
        (['--agent', 'e_az', '--simulations', '0'], 'simulations'),
        (['--agent', 'az', '--beta', '1'], '--beta applies only'),
        (['--agent', 'e_az', '--env', 'chain'], 'runs on --env deep_sea only'),
        (['--agent', 'e_az', '--beta', '-1'], 'beta'),
        (['--agent', 'e_az', '--steps', '0'], 'steps'),
    ],
)
def test_bad_options_exit_2_in_one_line(tmp_path, capsys, args, word):
    assert main(['train', *args, '--size', '5', '--out', str(tmp_path / 'r'), '--no-progress']) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and word in err, err


@pytest.mark.parametrize(
    'size, steps',
    [
        (14, 4200),  # the default run's learning test (300 episodes)
        pytest.param(20, 20_000, marks=pytest.mark.slow),
    ],
)  # R2
@pytest.mark.long
def test_e_az_finds_and_solves_and_az_does_not(size, steps):
    "Seeds 0-4: E-AZ finds the treasure and solves Deep Sea in >= 4 of 5 seeds; AZ finds it in <= 1 of 5."
    found, solved = {}, {}
    for mode in ('e_az', 'az'):
        _, _, res = _run(mode, size, steps, 5)
        first = first_treasure_episode(res.logs['denoised_return'])
        done = solved_at(res.logs['total_bad_episodes'])
        found[mode], solved[mode] = int((first > 0).sum()), int((done > 0).sum())
        print(mode, 'first treasure episodes', first, 'solved at', done)
    assert found['e_az'] >= 4 and solved['e_az'] >= 4 and found['az'] <= 1, (found, solved)
