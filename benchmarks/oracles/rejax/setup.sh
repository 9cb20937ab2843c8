#!/usr/bin/env bash
# Recreate the rejax oracle: a venv with rejax 0.1.3 (its DQN, and gymnax's MinAtar environments) kept apart from
# ours, so that its pins (jax, flax, optax, gymnax) never touch our environment. Idempotent: the venv is made only
# when missing, rejax and gymnax installed only when absent or of another version; then requirements.lock (beside
# this script) is rewritten from the venv's `pip freeze` and a check builds rejax's DQN on Breakout-MinAtar and steps
# its environment once.
#
# gymnax is pinned to 0.0.9: rejax 0.1.3 asks only gymnax>=0.0.9, so pip takes gymnax 1.x, whose `step` returns six
# values (terminated and truncated apart), and rejax's DQN then fails in `collect_transitions` ("too many values to
# unpack (expected 5)"). 0.0.9 is the last release with rejax's five-value `step`.
#
#   bash benchmarks/oracles/rejax/setup.sh            # env overrides: REJAX_VENV (/work/venvs/rejax), PYTHON (python3.11)
#
# With a requirements.lock present and REJAX_FROM_LOCK=1, the venv is installed from the lock instead (exact pins).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV=${REJAX_VENV:-/work/venvs/rejax}
PYTHON=${PYTHON:-python3.11}
VERSION=0.1.3
GYMNAX=0.0.9
say() { echo "[rejax setup] $*"; }

# 1. The venv.
if [ -x "$VENV/bin/python" ]; then
  say "venv $VENV exists ($("$VENV/bin/python" --version))"
else
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV"
  say "created venv $VENV ($("$VENV/bin/python" --version))"
fi

# 2. rejax (pulls in jax, flax, optax, distrax, ...) and gymnax 0.0.9, or the exact lock.
quiet() { grep -v 'is ignored: it is neither a file nor a directory' || true; }
have=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("rejax"), m.version("gymnax"))' \
  2>/dev/null || echo none)
if [ "${REJAX_FROM_LOCK:-0}" = 1 ] && [ -f "$HERE/requirements.lock" ]; then
  say "installing requirements.lock into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.lock" 2>&1 | quiet
elif [ "$have" = "$VERSION $GYMNAX" ]; then
  say "rejax $VERSION and gymnax $GYMNAX already installed: nothing installed"
else
  say "installing rejax==$VERSION gymnax==$GYMNAX into $VENV (had: $have)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "rejax==$VERSION" "gymnax==$GYMNAX" 2>&1 | quiet
fi

# 3. The lock: what the venv holds now.
{
  echo "# pip freeze of $VENV, written by setup.sh ($("$VENV/bin/python" --version)); REJAX_FROM_LOCK=1 installs it."
  "$VENV/bin/pip" freeze --disable-pip-version-check
} > "$HERE/requirements.lock"
say "wrote $HERE/requirements.lock ($(grep -vc '^#' "$HERE/requirements.lock") packages)"

# 4. Check: rejax's DQN builds on gymnax's Breakout-MinAtar, and the environment's step has rejax's five values.
JAX_PLATFORMS=cpu "$VENV/bin/python" -W ignore - <<'PY'
import importlib.metadata as m
import jax, rejax
algo = rejax.get_algo('dqn').create(env='Breakout-MinAtar')
key = jax.random.PRNGKey(0)
obs, state = algo.env.reset(key, algo.env_params)
out = algo.env.step(key, state, 0, algo.env_params)
assert len(out) == 5, f"gymnax's step returns {len(out)} values; rejax's DQN unpacks 5"
print("[rejax setup] check: rejax's DQN on Breakout-MinAtar builds and its environment steps; "
      + ", ".join(f"{p} {m.version(p)}" for p in ('rejax', 'gymnax', 'jax', 'jaxlib', 'flax', 'optax')))
PY
say "done. Time it: $VENV/bin/python $HERE/time_dqn.py --help"
