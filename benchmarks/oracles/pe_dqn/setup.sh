#!/usr/bin/env bash
# Recreate the PE-DQN oracle: the authors' source tree and a venv that runs it on a CPU. Idempotent.
#
#   bash benchmarks/oracles/pe_dqn/setup.sh /work/.mirror/anyboby+diverse-projection-ensembles/repo
#
# $1: a git directory of github.com/anyboby/diverse-projection-ensembles (the fetched mirror).
# Env overrides: PE_DQN_SRC (default /work/oracles/pe_dqn_src), PE_DQN_VENV (default /work/venvs/pe_dqn_oracle),
# PE_DQN_COMMIT (default the commit the README documents), PYTHON (default python3.11).
# The source goes outside the repository: none of their code is copied into it.
set -euo pipefail

MIRROR=${1:?usage: setup.sh MIRROR_GIT_DIR}
SRC=${PE_DQN_SRC:-/work/oracles/pe_dqn_src}
VENV=${PE_DQN_VENV:-/work/venvs/pe_dqn_oracle}
COMMIT=${PE_DQN_COMMIT:-a680894a36de2d960809a5ac13ae60a9e2b23266}
PYTHON=${PYTHON:-python3.11}

git --git-dir="$MIRROR" cat-file -e "$COMMIT^{commit}" || { echo "commit $COMMIT not in $MIRROR" >&2; exit 1; }

# 1. Their tree at COMMIT. The snapshot lacks the blob of vizualization/pedqn_compressed.gif (a README animation),
#    so the top-level entries are archived without it. A stamp records the commit; a matching stamp skips the export.
if [ "$(cat "$SRC/.oracle_commit" 2>/dev/null)" != "$COMMIT" ]; then
  rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
  entries=$(git --git-dir="$MIRROR" ls-tree --name-only "$COMMIT" | grep -v '^vizualization$')
  # shellcheck disable=SC2086
  git --git-dir="$MIRROR" archive "$COMMIT" $entries 2> >(grep -v 'invalid object .*pedqn_compressed.gif' >&2) \
    | tar -x -C "$SRC.tmp"
  echo "$COMMIT" > "$SRC.tmp/.oracle_commit"
  rm -rf "$SRC" && mv "$SRC.tmp" "$SRC"
  echo "exported $COMMIT to $SRC"
else
  echo "$SRC is at $COMMIT already"
fi

# 2. The venv. Their req.txt pins a Python 3.8 stack (numpy 1.21.6, gym 0.18.0, gym-retro, atari-py, procgen, ...)
#    that does not install on 3.11; these are the packages the PE-DQN agent path imports (torch, numpy, gym for
#    LazyFrames and spaces, rich, tqdm, wandb), plus bsuite for Deep Sea. torch 2.13.0 is the CPU wheel on this
#    machine's disk; pinning it keeps pip from fetching a CUDA build.
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install -q torch==2.13.0
"$VENV/bin/pip" install -q numpy==2.4.6 gym==0.26.2 rich==15.0.0 tqdm==4.70.1 wandb==0.31.0 bsuite==0.3.6 \
  2>&1 | grep -v 'is ignored: it is neither a file nor a directory' || true

# 3. Check: their modules import and the runner builds their agent.
"$VENV/bin/python" -W ignore -c "
import sys; sys.path.insert(0, '$(dirname "$0")')
import run_deep_sea as R
a = R.import_authors('$SRC')
print('ok: torch', R.torch.__version__, '| their PEDQN from', a.pedqn.__file__)
" 2>&1 | grep -v -i -E '^gym|numpy 2|gymnasium|migration|^$'
