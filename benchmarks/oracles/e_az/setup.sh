#!/usr/bin/env bash
# Recreate the E-AZ oracle: the authors' source trees and a CPU venv that runs them. Idempotent.
#
#   bash benchmarks/oracles/e_az/setup.sh /work/.mirror/emcts+e-alphazero/repo /work/.mirror/YanivO1123+emctx/repo \
#        [/work/.mirror/YanivO1123+EfficientExplore/repo]
#
# $1: git directory of github.com/emcts/e-alphazero (the JAX E-AlphaZero; the session tool `fetch
#     github:emcts/e-alphazero`). $2: git directory of github.com/YanivO1123/emctx (their fork of mctx, the URL their
#     Pipfile installs; github.com/emcts/emctx, the README's link, had no snapshot here). $3 (optional): git directory
#     of github.com/YanivO1123/EfficientExplore, the PyTorch code behind the paper's Deep Sea numbers: only exported,
#     for reading (no venv; see README.md).
# Env overrides: E_AZ_SRC (/work/oracles/e_az_src), EMCTX_SRC (/work/oracles/emctx_src), EE_SRC
# (/work/oracles/efficient_explore_src), E_AZ_VENV (/work/venvs/e_az_oracle), E_AZ_COMMIT, EMCTX_COMMIT, EE_COMMIT,
# PYTHON (python3.11). Sources go outside the repository: none of their code is copied into it.
set -euo pipefail

E_AZ_MIRROR=${1:?usage: setup.sh E_ALPHAZERO_GIT_DIR EMCTX_GIT_DIR [EFFICIENT_EXPLORE_GIT_DIR]}
EMCTX_MIRROR=${2:?usage: setup.sh E_ALPHAZERO_GIT_DIR EMCTX_GIT_DIR [EFFICIENT_EXPLORE_GIT_DIR]}
EE_MIRROR=${3:-}
E_AZ_SRC=${E_AZ_SRC:-/work/oracles/e_az_src}
EMCTX_SRC=${EMCTX_SRC:-/work/oracles/emctx_src}
EE_SRC=${EE_SRC:-/work/oracles/efficient_explore_src}
VENV=${E_AZ_VENV:-/work/venvs/e_az_oracle}
E_AZ_COMMIT=${E_AZ_COMMIT:-0d40290f35971e9e94c4e003bec36a97dc595c15}
EMCTX_COMMIT=${EMCTX_COMMIT:-97064442fd1a1065f9c13b8248838adcb181e39c}
EE_COMMIT=${EE_COMMIT:-a9bd245ab4c6f0a1046d53ae3576d11907c31482}  # branch deep_sea (not main, = upstream EfficientZero)
PYTHON=${PYTHON:-python3.11}
HERE=$(cd "$(dirname "$0")" && pwd)

# export COMMIT of MIRROR into DEST, blob by blob: a snapshot may lack some blobs (emctx lacks the test fixture
# emctx/_src/tests/test_data/muzero_tree.json), which `git archive` cannot skip. A stamp file records the commit.
export_tree() {
  local mirror=$1 commit=$2 dest=$3
  git --git-dir="$mirror" cat-file -e "$commit^{commit}" || { echo "commit $commit not in $mirror" >&2; exit 1; }
  if [ "$(cat "$dest/.oracle_commit" 2>/dev/null)" = "$commit" ]; then echo "$dest is at $commit already"; return; fi
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  git --git-dir="$mirror" ls-tree -r "$commit" | while read -r mode type sha path; do
    [ "$type" = blob ] || continue
    if ! git --git-dir="$mirror" cat-file -e "$sha" 2>/dev/null; then echo "  (absent from the snapshot: $path)"; continue; fi
    mkdir -p "$dest.tmp/$(dirname "$path")"
    git --git-dir="$mirror" cat-file blob "$sha" > "$dest.tmp/$path"
  done
  echo "$commit" > "$dest.tmp/.oracle_commit"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
  echo "exported $commit to $dest"
}

export_tree "$E_AZ_MIRROR" "$E_AZ_COMMIT" "$E_AZ_SRC"
export_tree "$EMCTX_MIRROR" "$EMCTX_COMMIT" "$EMCTX_SRC"
if [ -n "$EE_MIRROR" ]; then
  export_tree "$EE_MIRROR" "$EE_COMMIT" "$EE_SRC"
fi

# The venv. Their Pipfile (e-alphazero) pins nothing ("*") and asks for Python 3.12; their last functional commit is
# of October 2024, so the lock takes the JAX stack of that month, which runs their code unchanged on Python 3.11
# (CPU jaxlib). wandb is imported by their main.py (runs here use track=False).
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install -q -r "$HERE/requirements.lock" 2>&1 | grep -v 'is ignored: it is neither a file nor a directory' || true
# emctx goes on the path through a .pth file pointing at its exported tree: `pip install` of that tree would write
# build/ and *.egg-info into it and, through setup.py's find_namespace_packages, install `build`, `examples` and
# `requirements` as top-level packages. A pip-installed emctx from an earlier setup is removed.
"$VENV/bin/pip" uninstall -y -q emctx 2>/dev/null || true
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$EMCTX_SRC" > "$SITE/emctx_oracle_src.pth"

# Check: their modules import (main.py included) and jax sees the CPU.
cd "$E_AZ_SRC/src"
"$VENV/bin/python" -W ignore -c "
import jax, pgx, haiku, optax, flashbax, emctx
import config, context, selfplay, reanalyze, train, evaluate, main
from envs.deep_sea import DeepSea
print('ok: jax', jax.__version__, jax.devices(), '| pgx', pgx.__version__, '| haiku', haiku.__version__,
      '| emctx', emctx.__version__, 'from', emctx.__file__)
"
