"""Snapshots against direct evaluation: after a short run of every registry agent on Deep Sea 5, the last snapshot
(taken at the run's last step, so with the final agent state) must equal what we compute ourselves, cell by cell,
from the final state: each member's Q through the agent's own network one observation at a time, the greedy action
through `agent.greedy`, TDU's sigma and UCB's score and InfoGain bonus by their formulas in numpy, and the visit
counts and the last episode's path from the replay buffer (which holds every transition of the run)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import train_registry
from uncertain_rl.agents.ensemble_q import make_q_network, state_q, q_values
from uncertain_rl.envs.deep_sea import deep_sea_observation
from uncertain_rl.base import gymnax_spec
from uncertain_rl.registry import AGENTS, agent_config

N, EPISODES = 5, 40
SMALL = dict(hidden_sizes=(16,), batch_size=16, min_replay_size=16)
MEMBERS = {'dqn': {}, 'ddqn': {}, 'tdu': dict(num_exploiters=3, num_explorers=2)}


def _run(agent):
    overrides = dict(SMALL, **MEMBERS.get(agent, dict(num_ensemble=4)))
    res, env, a = train_registry(
        agent, 'deep_sea', size=N, episodes=EPISODES, seeds=2, num_chunks=2, snapshot_every=10 * N, **overrides
    )
    config = agent_config(agent, 'deep_sea', **overrides)
    state = jax.tree.map(lambda x: x[1], res.agent_state)  # seed index 1
    snap = {k: np.asarray(v[1, -1]) for k, v in res.snapshots.snapshots.items()}  # its last snapshot
    return res, env, a, config, state, snap


def _obs(cell):
    return deep_sea_observation(jnp.int32(cell // N), jnp.int32(cell % N), N)


# One agent per `cell_signals` implementation: vote, ucb and ddqn are ucb_infogain's code with other presets.
SIGNAL_AGENTS = ('dqn', 'boot_dqn', 'tdu', 'ucb_infogain')


@pytest.mark.long
def test_every_agent_records_the_signals_it_declares():
    """What the viewer is told (the loop's signals and the agent's declared `Signal`s) is what each agent's
    `cell_signals` records, with the declared shape: `[C, A]` per action, `[C]` per cell, `[C, K, A]` per member.
    Shapes only (`jax.eval_shape`): nothing compiles."""
    from uncertain_rl.registry import make_agent, runs_on
    from uncertain_rl.envs.deep_sea import DeepSea
    from uncertain_rl.loops import AGENT_OWNED, LOOP_SIGNALS

    env = DeepSea(5)
    cells, C = env.cells(env.default_params), 25
    for name, entry in AGENTS.items():
        if not runs_on(name, 'deep_sea'):
            continue
        agent = make_agent(name, agent_config(name, 'deep_sea'), gymnax_spec(env))
        obs = env.reset(jax.random.PRNGKey(0), env.default_params)[0]
        state = jax.eval_shape(lambda k: agent.init(k, obs, agent.hparams), jax.random.PRNGKey(0))
        recorded = dict(jax.eval_shape(agent.cell_signals, state, cells))
        owned = {
            k: recorded.pop(k) for k in AGENT_OWNED if k in recorded
        }  # the loop's own entries, computed by the agent
        assert set(owned) in (set(), set(AGENT_OWNED)), (name, sorted(owned))
        if owned:
            assert owned['greedy'].shape == (C,) and owned['greedy_path'].shape == (cells.path_length,), owned
        declared = {s.name: s for s in entry.signals}
        assert set(recorded) == set(declared), (name, sorted(recorded), sorted(declared))
        for key, signal in declared.items():
            shape = recorded[key].shape
            assert shape[0] == C and len(shape) == 1 + signal.per_action + signal.member, (name, key, shape)
    assert {s.name for s in LOOP_SIGNALS} == {'visits', 'greedy'}


def test_every_registry_agent_has_cell_signals():
    from uncertain_rl.registry import make_agent, runs_on
    from uncertain_rl.envs.deep_sea import DeepSea

    for name in AGENTS:
        if not runs_on(name, 'deep_sea'):
            continue  # the SAC family acts in box action spaces only
        assert make_agent(name, agent_config(name, 'deep_sea'), gymnax_spec(DeepSea(5))).cell_signals is not None, name


@pytest.mark.parametrize('agent', SIGNAL_AGENTS)
@pytest.mark.long
def test_snapshot_equals_direct_evaluation(agent):
    res, env, a, config, state, snap = _run(agent)
    assert snap['step'] == EPISODES * N and snap['episode'] == EPISODES
    assert res.snapshots.snapshots['episode'].shape == (2, EPISODES // 10 + 1)
    qnet = make_q_network(config, gymnax_spec(env))
    q = np.stack([np.asarray(state_q(qnet, state, _obs(c))) for c in range(N * N)])  # [C, K, A]
    np.testing.assert_allclose(snap['q'], q, rtol=1e-5, atol=1e-5)
    # visits and the last path from the replay buffer: every transition of the run, in order
    size = int(state.replay.size)
    assert size == EPISODES * N
    cells, actions = np.asarray(state.replay.data['obs'][:size]), np.asarray(state.replay.data['action'][:size])
    visits = np.zeros((N * N, 2), int)
    np.add.at(visits, (cells, actions), 1)
    np.testing.assert_array_equal(snap['visits'], visits)
    np.testing.assert_array_equal(snap['last_path'], cells[-N:])
    # the greedy action where it is well defined (no tie between the members' votes), and the greedy path
    votes = np.stack([(q[:, :, 1] > q[:, :, 0]).sum(1), (q[:, :, 0] >= q[:, :, 1]).sum(1)], -1)
    greedy = np.array([int(a.greedy(state, _obs(c), jax.random.PRNGKey(c))) for c in range(N * N)])
    clear = votes.max(-1) * 2 > q.shape[1] if agent in ('vote', 'ucb', 'ucb_infogain') else np.ones(N * N, bool)
    np.testing.assert_array_equal(snap['greedy'][clear], greedy[clear])
    mapping = np.asarray(env.default_params.action_mapping)
    if clear.all():
        col, path = 0, []
        for row in range(N):
            path.append(row * N + col)
            col = min(col + 1, N - 1) if snap['greedy'][row * N + col] == mapping[row, col] else max(col - 1, 0)
        np.testing.assert_array_equal(snap['greedy_path'], path)
    # the ensemble's statistics and each method's own signal, by their formulas
    if q.shape[1] > 1 and agent != 'tdu':
        ddof = getattr(config, 'ucb_ddof', 0)
        np.testing.assert_allclose(snap['q_std'], q.std(1, ddof=ddof), rtol=1e-4, atol=1e-5)
    if agent == 'tdu':
        K, lam, gamma = config.num_exploiters, config.prior_scale, config.discount
        np.testing.assert_allclose(snap['q_mean'], q[:, :K].mean(1), rtol=1e-5, atol=1e-5)
        target = lambda c: np.asarray(q_values(qnet, state.target, state.prior, lam, qnet.encode(_obs(c))))
        sigma = np.zeros((N * N, 2))
        for c in range(N * N):
            r, col = divmod(c, N)
            for act in (0, 1):
                right = act == mapping[r, col]
                reward = float(right and col == N - 1) - (0.01 / N if right else 0.0)
                nxt = (r + 1) * N + (min(col + 1, N - 1) if right else max(col - 1, 0))
                boot = 0.0 if r == N - 1 else gamma * target(nxt).max(-1)  # [K]
                td = reward + boot - q[c, :, act]
                sigma[c, act] = td[:K].std(ddof=1)
        np.testing.assert_allclose(snap['tdu_sigma'], sigma, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(snap['explorer_bonus'], config.beta * sigma, rtol=1e-4, atol=1e-5)
    if agent in ('ucb', 'ucb_infogain', 'vote', 'ddqn'):
        np.testing.assert_allclose(
            snap['ucb_score'], q.mean(1) + config.ucb_lambda * q.std(1, ddof=config.ucb_ddof), rtol=1e-4, atol=1e-5
        )
        logits = q / config.temperature
        p = np.exp(logits - logits.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)  # [C, K, A]
        avg = p.mean(1, keepdims=True)
        info_gain = (p * (np.log(p) - np.log(avg))).sum(-1).mean(1)
        np.testing.assert_allclose(snap['info_gain'], info_gain, rtol=1e-3, atol=1e-6)


@pytest.mark.long
def test_snapshots_change_nothing_in_training():
    """The same seeds with and without snapshots: the same actions (bad episodes) and returns; the snapshots draw
    from a key stream of their own."""
    on = train_registry(
        'tdu',
        'deep_sea',
        size=N,
        episodes=20,
        seeds=2,
        num_chunks=2,
        snapshot_every=5 * N,
        num_exploiters=3,
        num_explorers=2,
        **SMALL,
    )[0]
    off = train_registry(
        'tdu', 'deep_sea', size=N, episodes=20, seeds=2, num_chunks=2, num_exploiters=3, num_explorers=2, **SMALL
    )[0]
    np.testing.assert_array_equal(on.logs['total_bad_episodes'], off.logs['total_bad_episodes'])
    np.testing.assert_allclose(on.logs['episode_return'], off.logs['episode_return'], atol=1e-6)
    assert off.snapshots is None and on.snapshots.snapshots['q'].shape == (2, 5, N * N, 5, 2)
