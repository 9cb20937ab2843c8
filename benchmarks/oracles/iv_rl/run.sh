#!/usr/bin/env bash
# Run the IV-RL authors' Bootstrapped DQN and IV-DQN (their bsuite/main.py, unchanged) on bsuite cartpole_noise,
# niced, in the oracle venv that setup.sh made. All flags go to run_iv_rl.py (see `run.sh --help`):
#
#   bash benchmarks/oracles/iv_rl/run.sh OUT_DIR [--agents BootstrapDQN IV_DQN] [--seeds 0 1 2 ...]
#        [--bsuite-id cartpole_noise/0 | --id-per-seed] [--episodes 300] [--stop-when both|train|test|either|never]
#        [--preset as-run|ours-hparams] [--their-flag --batch_size 128 ...]
#   python3 benchmarks/oracles/iv_rl/table1.py OUT_DIR        # Table 1 from the logs
#
# Environment: IV_RL_VENV (default /work/venvs/iv_rl_oracle), IV_RL_SRC (default /work/oracles/iv_rl_src).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${IV_RL_VENV:-/work/venvs/iv_rl_oracle}"
SRC="${IV_RL_SRC:-/work/oracles/iv_rl_src}"
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  exec "$VENV/bin/python" "$HERE/run_iv_rl.py" --help
fi
OUT="$1"; shift
exec nice -n 19 "$VENV/bin/python" "$HERE/run_iv_rl.py" --out "$OUT" --src "$SRC" --python "$VENV/bin/python" "$@"
