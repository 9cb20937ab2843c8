"""Epistemic MCTS against mctx: `epistemic_muzero_policy` vs `mctx.muzero_policy` and `epistemic_gumbel_muzero_policy`
vs `mctx.gumbel_muzero_policy`, at equal batch size, simulations and model, in one run.

The model is trivial so that the search itself is what is timed: 4 actions, an 8-dimensional embedding updated by a
fixed random matrix per action (`tanh(e W_a)`), constant reward 0.1, discount 0.9, value 0.5 and slightly perturbed
uniform prior logits. The epistemic version adds Var[R] = 0.01, Var[V] = 0.25 (root and leaves), beta = 1 and the
default aggregation ('edge_std', Eq. 15). Every policy is jitted and compiled ahead of time (compile seconds reported
separately), run once warm, then timed as the median of `--repeats` calls with `jax.block_until_ready`; mctx's and
our calls alternate so that a shared machine's noise falls on both. The last line is
`emcts/mctx time ratio: R`, the worst (largest) ratio over every (policy, batch, simulations) point.

    python benchmarks/emcts_speed.py                       # batches 64, 1024; simulations 32, 128; ~3 min, 2-core CPU
    python benchmarks/emcts_speed.py --quick  # batch 16, 8 simulations: a smoke run, < 30 s (24 s measured)
    python benchmarks/emcts_speed.py --batches 64 --simulations 32 128 --aggregation node_std

Batch 1,024 x 128 simulations is the slowest point on a CPU (2.3 to 4.6 s a call on 2 cores, about 2 of the 3
minutes); it is kept in the default because it is the point the issue asks for, and `--batches` / `--simulations`
drop it.
"""

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import mctx

from uncertain_rl.emcts import (
    EpistemicRecurrentFnOutput,
    EpistemicRootFnOutput,
    epistemic_gumbel_muzero_policy,
    epistemic_muzero_policy,
)

NUM_ACTIONS, EMBED = 4, 8
REWARD, DISCOUNT, VALUE = 0.1, 0.9, 0.5
REWARD_VAR, VALUE_VAR, BETA = 0.01, 0.25, 1.0


def make_params(key):
    "The fixed model: one embedding matrix per action."
    return jax.random.normal(key, (NUM_ACTIONS, EMBED, EMBED)) / jnp.sqrt(EMBED)


def _step(params, action, embedding):
    next_embedding = jnp.tanh(jnp.einsum('bd,bde->be', embedding, params[action]))
    batch = embedding.shape[0]
    logits = 0.01 * next_embedding[:, :NUM_ACTIONS]  # uniform-ish, but depends on the state
    const = lambda c: jnp.full((batch,), c, embedding.dtype)
    return next_embedding, logits, const


def mctx_recurrent_fn(params, rng_key, action, embedding):
    del rng_key
    nxt, logits, const = _step(params, action, embedding)
    return mctx.RecurrentFnOutput(
        reward=const(REWARD), discount=const(DISCOUNT), prior_logits=logits, value=const(VALUE)
    ), nxt


def epistemic_recurrent_fn(params, rng_key, action, embedding):
    del rng_key
    nxt, logits, const = _step(params, action, embedding)
    return EpistemicRecurrentFnOutput(
        reward=const(REWARD),
        discount=const(DISCOUNT),
        prior_logits=logits,
        value=const(VALUE),
        reward_var=const(REWARD_VAR),
        value_var=const(VALUE_VAR),
    ), nxt


def roots(key, batch):
    embedding = jax.random.normal(key, (batch, EMBED))
    logits = 0.01 * embedding[:, :NUM_ACTIONS]
    value = jnp.full((batch,), VALUE)
    plain = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=embedding)
    epistemic = EpistemicRootFnOutput(
        prior_logits=logits, value=value, value_var=jnp.full((batch,), VALUE_VAR), embedding=embedding
    )
    return plain, epistemic


def policies(num_simulations: int, aggregation: str, beta: float = BETA):
    "`{name: (mctx fn, our fn)}`, each `fn(params, key, root) -> (action, action_weights)`."

    def wrap(policy, recurrent_fn, **kw):
        def fn(params, key, root):
            out = policy(params, key, root, recurrent_fn, num_simulations, **kw)
            return out.action, out.action_weights

        return jax.jit(fn)

    ours = dict(beta=beta, aggregation=aggregation)
    return {
        'muzero': (
            wrap(mctx.muzero_policy, mctx_recurrent_fn),
            wrap(epistemic_muzero_policy, epistemic_recurrent_fn, **ours),
        ),
        'gumbel_muzero': (
            wrap(mctx.gumbel_muzero_policy, mctx_recurrent_fn),
            wrap(epistemic_gumbel_muzero_policy, epistemic_recurrent_fn, **ours),
        ),
    }


def compile_seconds(fn, *args):
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    return compiled, time.perf_counter() - start


def timed(fn, *args) -> float:
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


def measure(name, theirs, ours, params, key, plain, epistemic, repeats: int):
    "Compile both, warm both, then alternate timed calls; median ms and compile seconds of each."
    theirs, theirs_compile = compile_seconds(theirs, params, key, plain)
    ours, ours_compile = compile_seconds(ours, params, key, epistemic)
    jax.block_until_ready(theirs(params, key, plain)), jax.block_until_ready(ours(params, key, epistemic))
    t_theirs, t_ours = [], []
    for i in range(repeats):
        k = jax.random.fold_in(key, i)
        t_theirs.append(timed(theirs, params, k, plain))
        t_ours.append(timed(ours, params, k, epistemic))
    return 1e3 * statistics.median(t_theirs), 1e3 * statistics.median(t_ours), theirs_compile, ours_compile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--batches', type=int, nargs='+', default=[64, 1024])
    ap.add_argument('--simulations', type=int, nargs='+', default=[32, 128])
    ap.add_argument('--repeats', type=int, default=7, help='timed calls per point (median)')
    ap.add_argument('--beta', type=float, default=BETA, help='0 times the bookkeeping alone (same trees as mctx)')
    ap.add_argument('--aggregation', default='edge_std', choices=['edge_std', 'node_std', 'var_mean'])
    ap.add_argument('--policies', nargs='+', default=['muzero', 'gumbel_muzero'], choices=['muzero', 'gumbel_muzero'])
    ap.add_argument('--quick', action='store_true', help='batch 16, 8 simulations, 3 repeats: a smoke run')
    args = ap.parse_args()
    if args.quick:
        args.batches, args.simulations, args.repeats = [16], [8], 3
    print(
        f"{NUM_ACTIONS} actions, embedding {EMBED}, beta {args.beta}, aggregation {args.aggregation}; "
        f"{jax.devices()[0].platform} ({jax.device_count()} device), jax {jax.__version__}, "
        f"mctx {getattr(mctx, '__version__', '?')}, median of {args.repeats}"
    )
    params = make_params(jax.random.PRNGKey(0))
    header = (
        f"{'policy':<15}{'batch':>7}{'sims':>6}{'mctx ms':>10}{'ours ms':>10}{'ratio':>7}"
        f"{'mctx compile s':>16}{'ours compile s':>16}"
    )
    print(header)
    worst = 0.0
    for batch in args.batches:
        plain, epistemic = roots(jax.random.PRNGKey(batch), batch)
        for sims in args.simulations:
            pols = policies(sims, args.aggregation, args.beta)
            for name in args.policies:
                theirs, ours = pols[name]
                t_ms, o_ms, t_c, o_c = measure(
                    name, theirs, ours, params, jax.random.PRNGKey(1), plain, epistemic, args.repeats
                )
                worst = max(worst, o_ms / t_ms)
                print(
                    f"{name:<15}{batch:>7}{sims:>6}{t_ms:>10.2f}{o_ms:>10.2f}{o_ms / t_ms:>7.2f}"
                    f"{t_c:>16.2f}{o_c:>16.2f}",
                    flush=True,
                )
    print(f"emcts/mctx time ratio: {worst:.2f}")


if __name__ == '__main__':
    main()
