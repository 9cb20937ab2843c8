"""Our JAX Deep Sea against bsuite's own numpy `DeepSea`, the oracle.

Deterministic variant: step-by-step identity over multi-episode runs. Action sequences are drawn in bsuite
(each sequence follows the 'right' action with probability 1 - p and a uniform action otherwise, with p cycling over
0, 0.01, 0.05, 0.2, 0.5 and 1, so that treasures, bad episodes and everything between occur even at N = 50), then
replayed through our environment.

Stochastic variant: our random draws cannot equal numpy's, so we compare statistics. Tolerances are 4.5 standard
errors of the difference (a false alarm about 7e-6 per comparison for a normal statistic) and, for whole
distributions, a two-sample Kolmogorov-Smirnov test at p > 1e-4. Seeds are fixed, so the tests are deterministic;
the tolerances only make sure that what they accept is what an unbiased implementation would produce.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from bsuite.environments.deep_sea import DeepSea as BsuiteDeepSea
from scipy import stats

from uncertain_rl.envs.deep_sea import DeepSea, make_deep_sea, rollout

SIZES = (1, 2, 5, 10, 20, 50)
MAPPING_SEEDS = (0, 1, 42)
N_SEQUENCES = 200
N_EPISODES = 3
DEVIATIONS = (0.0, 0.01, 0.05, 0.2, 0.5, 1.0)


def bsuite_run(size, mapping_seed, deviation, rng, deterministic=True, seed=None):
    "Run N_EPISODES episodes of bsuite's DeepSea, choosing actions as the module docstring says; record everything."
    env = BsuiteDeepSea(size, deterministic=deterministic, mapping_seed=mapping_seed, seed=seed)
    rec = {
        k: [] for k in ('action', 'observation', 'reward', 'discount', 'last', 'total_bad_episodes', 'denoised_return')
    }
    for _ in range(N_EPISODES):
        ts = env.reset()
        while not ts.last():
            right = env._action_mapping[env._row, env._column]
            action = int(right) if rng.random() >= deviation else int(rng.integers(2))
            ts = env.step(action)
            info = env.bsuite_info()
            for k, v in (
                ('action', action),
                ('observation', ts.observation),
                ('reward', ts.reward),
                ('discount', ts.discount),
                ('last', ts.last()),
                ('total_bad_episodes', info['total_bad_episodes']),
                ('denoised_return', info['denoised_return']),
            ):
                rec[k].append(v)
    return {k: np.asarray(v) for k, v in rec.items()}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mapping_seed", MAPPING_SEEDS)
def test_deterministic_matches_bsuite(size, mapping_seed):
    rng = np.random.default_rng(1000 * size + mapping_seed)
    runs = [bsuite_run(size, mapping_seed, DEVIATIONS[i % len(DEVIATIONS)], rng) for i in range(N_SEQUENCES)]
    ref = {k: np.stack([r[k] for r in runs]) for k in runs[0]}

    env = DeepSea(size, mapping_seed=mapping_seed)
    params = env.default_params
    np.testing.assert_array_equal(
        np.asarray(params.action_mapping), BsuiteDeepSea(size, mapping_seed=mapping_seed)._action_mapping
    )
    keys = jax.random.split(jax.random.PRNGKey(0), N_SEQUENCES)
    ours = jax.jit(jax.vmap(lambda k, a: rollout(env, params, k, a)))(keys, jnp.asarray(ref['action'], jnp.int32))

    np.testing.assert_array_equal(np.asarray(ours['observation']), ref['observation'])
    # bsuite adds python floats (float64); ours are float32: equal up to float32 rounding
    np.testing.assert_allclose(np.asarray(ours['reward']), ref['reward'], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(ours['discount']), ref['discount'])
    np.testing.assert_array_equal(np.asarray(ours['terminated']), ref['last'])
    np.testing.assert_array_equal(np.asarray(ours['total_bad_episodes']), ref['total_bad_episodes'])
    np.testing.assert_array_equal(np.asarray(ours['denoised_return']), ref['denoised_return'])
    # the runs really did cover treasures and bad episodes (else the comparison would be weak)
    assert ref['denoised_return'][:, -1].max() >= 1 and ref['total_bad_episodes'][:, -1].max() >= 1


def test_unrandomized_actions_match_bsuite():
    rng = np.random.default_rng(7)
    for size in (3, 8):
        env = DeepSea(size, randomize_actions=False)
        np.testing.assert_array_equal(np.asarray(env.default_params.action_mapping), np.ones((size, size)))
        actions = rng.integers(0, 2, 4 * size)
        tr = rollout(env, env.default_params, jax.random.PRNGKey(0), jnp.asarray(actions, jnp.int32))
        ref_env = BsuiteDeepSea.__new__(BsuiteDeepSea)
        with pytest.warns(UserWarning):
            ref_env.__init__(size, randomize_actions=False)
        rewards = []
        ts = ref_env.reset()
        for a in actions:
            if ts.last():
                ref_env.reset()
            ts = ref_env.step(int(a))
            rewards.append(ts.reward)
        np.testing.assert_allclose(np.asarray(tr['reward']), rewards, atol=1e-6)


# ---------------------------------------------------------------- stochastic variant


def play_jax(env, params, key, go_right):
    """Our stochastic variant stepped with the 'right' action at step t where `go_right[t]`, the other action elsewhere.
    Returns the final state and per step (row, column, right, reward, next column; N after an episode's last step)."""
    key_reset, key_steps = jax.random.split(key)
    _, state = env.reset(key_reset, params)

    def step(state, xs):
        key, right = xs
        right_action = params.action_mapping[state.row, state.column]
        _, nxt, reward, term, _, _ = env.step(key, state, jnp.where(right, right_action, 1 - right_action), params)
        next_col = jnp.where(term, env.size, nxt.column)  # after the last step the column is reset: mark it
        return nxt, (state.row, state.column, right, reward, next_col)

    state, out = jax.lax.scan(step, state, (jax.random.split(key_steps, len(go_right)), jnp.asarray(go_right)))
    return state, [np.asarray(x) for x in out]


def play_bsuite(size, go_right, seed):
    "bsuite's stochastic Deep Sea stepped as `play_jax` steps ours: its `bsuite_info` and the same per-step columns."
    env = BsuiteDeepSea(size, deterministic=False, mapping_seed=0, seed=seed)
    ts, out = env.reset(), []
    for right in go_right:
        if ts.last():
            ts = env.reset()
        r, c = env._row, env._column
        right_action = int(env._action_mapping[r, c])
        ts = env.step(right_action if right else 1 - right_action)
        out.append((r, c, right, ts.reward, size if ts.last() else env._column))
    return env.bsuite_info(), [np.asarray(x) for x in zip(*out)]


def failed_moves(size, rows, cols, right, next_cols):
    "Boolean per right move that could have moved (column < N-1, not the last step): did it fail?"
    ok = right & (cols < size - 1) & (rows < size - 1)
    return next_cols[ok] == cols[ok]


def end_state_noise(size, rows, cols, right, rewards, cost=0.01):
    "Reward minus its deterministic part (treasure, move cost) in the bottom-row end cells; elsewhere the residual."
    deterministic_part = np.where(right, (cols == size - 1).astype(float) - cost / size, 0.0)
    residual = rewards - deterministic_part
    end = (rows == size - 1) & ((cols == 0) | (cols == size - 1))
    left_end = end & (cols == 0)
    return residual[end], residual[~end], residual[left_end]


@pytest.mark.parametrize("size", (5, 10, 20))
def test_stochastic_statistics_match_bsuite(size):
    n_episodes = 8000
    go_right = np.repeat(np.arange(n_episodes) % 2 == 0, size)  # episodes alternate: always right, always left
    env = DeepSea(size, deterministic=False, mapping_seed=0)
    _, (rows, cols, right, rewards, next_cols) = play_jax(env, env.default_params, jax.random.PRNGKey(size), go_right)
    _, ref = play_bsuite(size, go_right, seed=size)

    # 1. right moves fail with probability 1/N
    f_ours, f_ref = failed_moves(size, rows, cols, right, next_cols), failed_moves(size, ref[0], ref[1], ref[2], ref[4])
    q = 1 / size
    se = np.sqrt(q * (1 - q) / len(f_ours))
    assert abs(f_ours.mean() - q) < 4.5 * se, (f_ours.mean(), q)
    se_diff = np.sqrt(q * (1 - q) * (1 / len(f_ours) + 1 / len(f_ref)))
    assert abs(f_ours.mean() - f_ref.mean()) < 4.5 * se_diff, (f_ours.mean(), f_ref.mean())

    # 2. N(0, 1) noise in both bottom-row end cells (the left one included), and no noise anywhere else
    n_ours, rest_ours, left_ours = end_state_noise(size, rows, cols, right, rewards)
    n_ref, rest_ref, left_ref = end_state_noise(size, ref[0], ref[1], ref[2], ref[3])
    np.testing.assert_allclose(rest_ours, 0.0, atol=1e-6)
    np.testing.assert_allclose(rest_ref, 0.0, atol=1e-9)
    assert len(left_ours) > 1000 and len(n_ours) - len(left_ours) > 1000
    for sample in (n_ours, left_ours):
        assert abs(sample.mean()) < 4.5 / np.sqrt(len(sample))
        assert abs(sample.var() - 1.0) < 4.5 * np.sqrt(2.0 / len(sample))  # var of a normal sample variance: 2/n
        assert stats.kstest(sample, 'norm').pvalue > 1e-4
    assert stats.ks_2samp(n_ours, n_ref).pvalue > 1e-4
    assert stats.ks_2samp(left_ours, left_ref).pvalue > 1e-4

    # 3. the mean return of the always-right episodes is bsuite's optimal return
    ret_ours = rewards.reshape(n_episodes, size)[::2].sum(1)
    ret_ref = ref[3].reshape(n_episodes, size)[::2].sum(1)
    se_ret = np.sqrt(ret_ours.var() / len(ret_ours) + ret_ref.var() / len(ret_ref))
    assert abs(ret_ours.mean() - env.optimal_return) < 4.5 * ret_ours.std() / np.sqrt(len(ret_ours))
    assert abs(ret_ours.mean() - ret_ref.mean()) < 4.5 * se_ret
    assert abs(env.optimal_return - BsuiteDeepSea(size, deterministic=False, mapping_seed=0)._optimal_return) < 1e-12


def test_same_seed_same_results():
    env = make_deep_sea(10, 'stochastic')
    actions = jnp.asarray(np.random.default_rng(0).integers(0, 2, 500), jnp.int32)
    a = rollout(env, env.default_params, jax.random.PRNGKey(3), actions)
    b = rollout(env, env.default_params, jax.random.PRNGKey(3), actions)
    c = rollout(env, env.default_params, jax.random.PRNGKey(4), actions)
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]))
    assert not np.array_equal(np.asarray(a['reward']), np.asarray(c['reward']))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(size=0), 'size'),
        (dict(size=-3), 'size'),
        (dict(size=2.5), 'size'),
        (dict(size=True), 'size'),
        (dict(size=4, mapping_seed=-1), 'mapping_seed'),
        (dict(size=4, deterministic=None), 'deterministic'),
        (dict(size=4, unscaled_move_cost=-1.0), 'unscaled_move_cost'),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        DeepSea(**kwargs)


def test_unknown_variant():
    with pytest.raises(ValueError, match='variant'):
        make_deep_sea(10, 'windy')


# ---------------------------------------------------------------- bsuite's counters in the stochastic variant


@pytest.mark.parametrize("size", (5, 10))
def test_stochastic_counters_match_bsuite(size):
    """The columns bsuite's analysis reads, in the stochastic variant: with the same decisions (the 'right' action with
    probability 0.9, each step), ours and bsuite's count bad episodes and treasures at the same rates per episode
    (two-proportion tests at 4.5 standard errors): a right move that slips is not a bad episode, a left move on the
    diagonal is."""
    n_episodes = 4000
    go_right = np.random.default_rng(size).random(n_episodes * size) < 0.9
    env = DeepSea(size, deterministic=False, mapping_seed=0)
    state, _ = play_jax(env, env.default_params, jax.random.PRNGKey(size), go_right)
    ours = int(state.total_bad_episodes), float(state.denoised_return)
    info, _ = play_bsuite(size, go_right, seed=size)
    theirs = info['total_bad_episodes'], info['denoised_return']
    for o, t in zip(ours, theirs):
        assert min(o, t) > 200, (ours, theirs)  # both events common: the comparison has power
        p = (o + t) / (2 * n_episodes)
        assert abs(o - t) / n_episodes < 4.5 * np.sqrt(p * (1 - p) * 2 / n_episodes), (ours, theirs)


def test_gymnax_deep_sea_map_is_not_bsuites():
    """gymnax's DeepSea draws its action map from `jax.random.key(0)` whatever the mapping seed: it is one map, bsuite's
    for none of mapping seeds 0-19 (bsuite's 20 maps are 20 different ones); ours is bsuite's for every one."""
    from gymnax.environments.bsuite.deep_sea import DeepSea as GymnaxDeepSea

    size = 10
    theirs = np.asarray(GymnaxDeepSea(size).action_mapping).astype(int)
    maps = [BsuiteDeepSea(size, mapping_seed=s)._action_mapping.astype(int) for s in range(20)]
    assert len({m.tobytes() for m in maps}) == 20
    assert not any(np.array_equal(theirs, m) for m in maps)
    for s, m in enumerate(maps):
        np.testing.assert_array_equal(np.asarray(DeepSea(size, mapping_seed=s).default_params.action_mapping), m)
