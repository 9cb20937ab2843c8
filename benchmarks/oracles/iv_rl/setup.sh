#!/usr/bin/env bash
# Recreate the IV-RL oracle: the authors' source tree exported from a git mirror of montrealrobotics/iv_rl at the pinned
# commit, and a Python 3.11 venv with the pinned requirements (requirements.lock beside this script). Idempotent: each
# part is redone only when it is missing or differs; prints what it did.
#
#   bash benchmarks/oracles/iv_rl/setup.sh MIRROR_GIT_DIR [--src DIR] [--venv DIR] [--commit SHA] [--python EXE]
#
# MIRROR_GIT_DIR: a (bare) git directory holding the commit, e.g. the one the session tool `fetch` returns for
# github:montrealrobotics/iv_rl (/work/.mirror/montrealrobotics+iv_rl/repo), or any clone's .git.
# Defaults: --src /work/oracles/iv_rl_src  --venv /work/venvs/iv_rl_oracle  --commit 0f72a8f0...  --python python3.11
# Their code is never copied into this repository: it lives in --src, outside it.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
COMMIT=0f72a8f077a238237027ea96b7d1160c35ac9959      # montrealrobotics/iv_rl HEAD, "Update README.md", 2022-01-25
SRC=/work/oracles/iv_rl_src
VENV=/work/venvs/iv_rl_oracle
PY=python3.11
[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }
MIRROR="$1"; shift
while [ $# -gt 0 ]; do
  case "$1" in
    --src) SRC="$2"; shift 2;;
    --venv) VENV="$2"; shift 2;;
    --commit) COMMIT="$2"; shift 2;;
    --python) PY="$2"; shift 2;;
    *) echo "setup.sh: unknown argument $1" >&2; exit 2;;
  esac
done

say() { echo "[iv_rl setup] $*"; }

# 1. The commit, from the mirror.
git --git-dir="$MIRROR" cat-file -e "${COMMIT}^{commit}" 2>/dev/null \
  || { echo "setup.sh: $MIRROR does not hold commit $COMMIT (fetch github:montrealrobotics/iv_rl again)" >&2; exit 1; }
HEAD_SHA="$(git --git-dir="$MIRROR" rev-parse HEAD 2>/dev/null || echo '?')"
say "mirror $MIRROR: HEAD $HEAD_SHA; using pinned commit $COMMIT"
[ "$HEAD_SHA" = "$COMMIT" ] || say "note: the mirror's HEAD is not the pinned commit; exporting the pinned one"

# 2. Their source tree, exported (git archive) outside this repository.
if [ -f "$SRC/.iv_rl_commit" ] && [ "$(cat "$SRC/.iv_rl_commit")" = "$COMMIT" ] && [ -f "$SRC/bsuite/main.py" ]; then
  say "source tree $SRC already at $COMMIT: kept"
else
  if [ -e "$SRC" ] && [ -n "$(ls -A "$SRC" 2>/dev/null)" ] && [ ! -f "$SRC/.iv_rl_commit" ]; then
    echo "setup.sh: $SRC exists, is not empty and was not made by this script: refusing to replace it" >&2; exit 1
  fi
  rm -rf "$SRC"
  mkdir -p "$SRC"
  git --git-dir="$MIRROR" archive "$COMMIT" | tar -x -C "$SRC"
  echo "$COMMIT" > "$SRC/.iv_rl_commit"
  say "exported $COMMIT to $SRC ($(find "$SRC" -type f | wc -l) files)"
fi

# 3. The venv, with the pinned requirements.
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  say "venv $VENV exists ($("$VENV/bin/python" --version))"
else
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  say "created venv $VENV ($("$VENV/bin/python" --version))"
fi
want="$(grep -v '^#' "$HERE/requirements.lock" | grep -v '^$' | tr 'A-Z_' 'a-z-' | sort)"
have="$("$VENV/bin/pip" freeze 2>/dev/null | tr 'A-Z_' 'a-z-' | sort)"
if [ "$want" = "$have" ]; then
  say "venv packages match requirements.lock: nothing installed"
else
  say "installing requirements.lock into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.lock" 2>&1 | grep -v 'is ignored: it is neither' || true
  have="$("$VENV/bin/pip" freeze 2>/dev/null | tr 'A-Z_' 'a-z-' | sort)"
  if [ "$want" != "$have" ]; then
    say "warning: the venv differs from requirements.lock:"; diff <(echo "$want") <(echo "$have") || true
  else
    say "venv packages now match requirements.lock"
  fi
fi

# 4. Check: their modules import, from their vendored bsuite, on the CPU.
cd "$SRC"
"$VENV/bin/python" - "$SRC" <<'EOF'
import sys, types
src = sys.argv[1]
sys.path[:0] = [src + '/bsuite']
sys.modules.setdefault('wandb', types.SimpleNamespace(log=lambda *a, **k: None))
import numpy, torch, bsuite
from bsuite.models.agent_bootdqn import BootstrapDQN, IV_LakshmiBootDQN
from bsuite.baselines import experiment
assert bsuite.__file__.startswith(src), bsuite.__file__
print(f"[iv_rl setup] check: their bsuite {bsuite.__version__} from {bsuite.__file__}; torch {torch.__version__} "
      f"(cuda available: {torch.cuda.is_available()}), numpy {numpy.__version__}: BootstrapDQN, IV_LakshmiBootDQN import")
EOF
say "done. Run: bash $HERE/run.sh OUT_DIR [--agents BootstrapDQN IV_DQN] [--seeds 0 1 2] [--episodes 300]"
