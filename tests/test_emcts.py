"""EMCTS against mctx: at beta = 0 (any variances) and with no variances (any beta) the epistemic policies must
reproduce `mctx.muzero_policy` / `mctx.gumbel_muzero_policy` bit for bit under `jax.jit`. EPUCT runs here with mctx's
default normalisation (parent and siblings); its own default, MuZero's tree-wide bounds, is tested bit for bit against
mctx with the same bounds written as an mctx qtransform in `nbs/61_emcts.ipynb`."""

import dataclasses

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from uncertain_rl.emcts import (
    as_mctx,
    epistemic_gumbel_muzero_policy,
    epistemic_muzero_policy,
    epistemic_qtransform_by_parent_and_siblings,
    random_tabular_model,
    tabular_recurrent_fn,
    tabular_root,
)


def assert_matches_mctx(ours, theirs):
    np.testing.assert_array_equal(ours.action, theirs.action)
    np.testing.assert_array_equal(ours.action_weights, theirs.action_weights)
    for f in dataclasses.fields(mctx.Tree):
        jax.tree.map(
            lambda x, y: np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=f.name),
            getattr(ours.search_tree, f.name),
            getattr(theirs.search_tree, f.name),
        )


CONFIGS = [  # (batch, simulations, actions, max_depth, seed)
    (2, 8, 3, None, 0),
    (3, 12, 4, 3, 1),
]


@pytest.mark.parametrize('gumbel', [False, True])
@pytest.mark.parametrize('batch,sims,actions,max_depth,seed', CONFIGS)
@pytest.mark.long
def test_beta_zero_is_mctx(gumbel, batch, sims, actions, max_depth, seed):
    model0 = random_tabular_model(jax.random.PRNGKey(seed), 7, actions)
    model1 = random_tabular_model(jax.random.PRNGKey(seed), 7, actions, var_scale=3.0)
    states = jnp.arange(batch) % 7
    invalid = jnp.zeros((batch, actions)).at[0, 1].set(1.0).at[batch - 1, actions - 1].set(1.0)
    if gumbel:
        ours = jax.jit(
            lambda m, k, b: epistemic_gumbel_muzero_policy(
                m,
                k,
                tabular_root(m, states),
                tabular_recurrent_fn,
                sims,
                invalid,
                max_depth,
                beta=b,
                max_num_considered_actions=4,
            )
        )
        theirs = jax.jit(
            lambda m, k: mctx.gumbel_muzero_policy(
                m,
                k,
                *as_mctx(tabular_root(m, states), tabular_recurrent_fn),
                sims,
                invalid,
                max_depth,
                max_num_considered_actions=4,
            )
        )
    else:
        ours = jax.jit(
            lambda m, k, b: epistemic_muzero_policy(
                m,
                k,
                tabular_root(m, states),
                tabular_recurrent_fn,
                sims,
                invalid,
                max_depth,
                beta=b,
                qtransform=epistemic_qtransform_by_parent_and_siblings,
            )
        )
        theirs = jax.jit(
            lambda m, k: mctx.muzero_policy(
                m, k, *as_mctx(tabular_root(m, states), tabular_recurrent_fn), sims, invalid, max_depth
            )
        )
    key = jax.random.PRNGKey(seed + 10)
    beta = lambda b: jnp.full(batch, b)
    assert_matches_mctx(ours(model0, key, beta(0.0)), theirs(model0, key))
    assert_matches_mctx(ours(model1, key, beta(0.0)), theirs(model1, key))  # beta = 0 is passive
    assert_matches_mctx(ours(model0, key, beta(10.0)), theirs(model0, key))  # no variance: beta multiplies zeros
    with pytest.raises(AssertionError):  # the oracle can fail
        assert_matches_mctx(ours(model1, key, beta(5.0)), theirs(model1, key))
