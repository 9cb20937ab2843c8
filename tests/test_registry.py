"""Every agent of the registry trains through `run_chunked`, whose vmap names the run axis so that learning's
step-count decision stays a real `lax.cond` (`loops.any_run`), and gets the same result as a plain `jax.vmap`, where
the same cond is computed as a `select` of both branches. Learning in bursts (2 SGD steps every 3 environment steps)
makes the cond matter."""

import jax
import numpy as np
import pytest

from uncertain_rl.loops import TrainConfig, train, run_chunked
from uncertain_rl.base import gymnax_spec
from uncertain_rl.registry import AGENTS, agent_config, config_for_env, env_facts, make_agent, make_env

SMALL = dict(hidden_sizes=(8,), batch_size=8, min_replay_size=8, sgd_period=3, sgd_steps_per_update=2)


@pytest.mark.parametrize('name', [n for n, e in AGENTS.items() if hasattr(e.config(), 'sgd_period')])  # replay learners
@pytest.mark.long
def test_every_agent_learns_the_same_in_lockstep_and_alone(name):
    env = make_env('deep_sea', 5)
    config = config_for_env(name, agent_config(name, 'deep_sea', **SMALL), env_facts('deep_sea', env.default_params))
    agent = make_agent(name, config, gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=100, max_episodes=20))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(2))
    chunked = run_chunked(run, keys, num_chunks=2, progress=False)
    state, logs = jax.jit(jax.vmap(run.run))(keys)
    np.testing.assert_array_equal(np.asarray(chunked.agent_state.sgd_steps), [62, 62])  # due at steps 9, 12, ..., 99
    np.testing.assert_array_equal(np.asarray(state.sgd_steps), [62, 62])
    np.testing.assert_array_equal(chunked.logs['total_bad_episodes'], np.asarray(logs['total_bad_episodes']))
    np.testing.assert_allclose(chunked.logs['loss'], np.asarray(logs['loss']), rtol=1e-4, atol=1e-6)
    assert np.isfinite(chunked.logs['loss']).all()


REPLAY_LEARNERS = [n for n, e in AGENTS.items() if hasattr(e.config(), 'sgd_period')]
ONE_OF_EACH_LEARNER = ('boot_dqn', 'pe_dqn', 'iv_dqn')  # ensemble Q, distributional, BIV-weighted: by default;
# the others (the same `learn`) under -m slow, for CI's time


@pytest.mark.parametrize(
    'name', [n if n in ONE_OF_EACH_LEARNER else pytest.param(n, marks=pytest.mark.slow) for n in REPLAY_LEARNERS]
)
@pytest.mark.long
def test_each_run_learns_on_its_own_schedule_in_a_batch(name):
    """Batch independence: with an episode budget on Cartpole, whose episodes vary in length, the runs of a batch
    finish (and freeze) at different steps; each run's SGD steps must still be exactly those its own step count made
    due (the replay holds `min_replay_size` transitions and the step is a multiple of `sgd_period`). Before
    `ensemble_q.own_schedule`, a run frozen on a due step made every other run learn at every step."""
    env = make_env('cartpole', 0)
    small = dict(SMALL, sgd_period=2, sgd_steps_per_update=1, replay_capacity=1_000)  # the schedule, not the scale
    config = config_for_env(name, agent_config(name, 'cartpole', **small), env_facts('cartpole', env.default_params))
    agent = make_agent(name, config, gymnax_spec(env))
    run = train(TrainConfig(env, agent, num_steps=2_000, max_episodes=12, stop_at_max_episodes=True))
    keys = jax.vmap(jax.random.PRNGKey)(np.arange(6))
    # one vmap (devices=1): any_run spans the whole batch
    state = run_chunked(run, keys, num_chunks=4, progress=False, devices=1).agent_state
    steps = np.asarray(state.env_steps)
    assert len(set(steps.tolist())) > 1, f'the runs froze together ({steps}): the test shows nothing'
    own = [
        sum(
            1
            for t in range(1, n + 1)
            if min(t, config.replay_capacity) >= config.min_replay_size and t % config.sgd_period == 0
        )
        * config.sgd_steps_per_update
        for n in steps
    ]
    np.testing.assert_array_equal(np.asarray(state.sgd_steps), own)


def test_declared_planning_model_is_the_one_the_environment_gives():
    """An environment's `EnvEntry.planning` (what the registry routes planning agents by) agrees with what its object
    gives: `e_az.planning_model` returns a model exactly where the entry declares one, and refuses elsewhere."""
    from uncertain_rl.agents.e_az import planning_model
    from uncertain_rl.registry import ENVS, env_entry

    for name in ENVS:
        spec = gymnax_spec(make_env(name, 6))
        if env_entry(name).planning:
            model = planning_model(spec)
            assert model.num_actions == spec.num_actions and len(model.all_cells()[0]) > 0, name
        else:
            with pytest.raises(ValueError):
                planning_model(spec)
