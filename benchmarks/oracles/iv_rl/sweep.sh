#!/usr/bin/env bash
# The authors' BootstrapDQN and IV_DQN on bsuite's whole cartpole_noise sweep (issue 60): ids 4-19 (noise scales 0.3,
# 1, 3 and 10, four ids each), one run per id with the id as its seed (their --net_seed and the environments' seed),
# as their scripts/run_bsuite.sh intends, at most 300 episodes, stopping once solved. Ids 0-3 (noise 0.1) are the
# committed as_run_noise_0.1 runs of seeds 0-3: bsuite's settings of ids 0-3 are the same (noise 0.1, bsuite seed
# None), so cartpole_noise/k with seed k is that folder's seed-k run (`--check` reruns id 1 for 10 episodes and
# compares it with it).
#
#   bash benchmarks/oracles/iv_rl/sweep.sh [--check]    # resumable: a run committed under OUT is not run again
#
# Runs go one at a time (niced, one torch thread) into WORK; each finished run (its run.json written) is copied to
# OUT/seed_<id>/cartpole_noise/<their folder>. The order interleaves the noise scales (4, 8, 12, 16, 5, 9, ...) and
# runs both agents of an id in turn, so that a partial sweep stays balanced.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
OUT="${OUT:-$ROOT/benchmarks/results/oracles/iv_rl/as_run_sweep}"
WORK="${WORK:-/work/oracles/iv_rl_sweep}"

if [ "${1:-}" = "--check" ]; then
  bash "$HERE/run.sh" "$WORK/check" --agents BootstrapDQN --id-per-seed --seeds 1 --episodes 10 --stop-when never
  ours="$(ls "$WORK"/check/seed_1/cartpole_noise/BootstrapDQN_bs_*/train/*.csv)"
  committed="$(ls "$ROOT"/benchmarks/results/oracles/iv_rl/as_run_noise_0.1/seed_1/cartpole_noise/BootstrapDQN_bs_*/train/*.csv)"
  python3 - "$ours" "$committed" <<'EOF'
import sys
import pandas as pd
a, b = (pd.read_csv(p) for p in sys.argv[1:3])
same = a['episode_return'].tolist() == b['episode_return'].tolist()[: len(a)]
print(f"cartpole_noise/1 seed 1 against cartpole_noise/0 seed 1, first {len(a)} training episodes:", 'equal' if same else 'DIFFERENT')
sys.exit(0 if same else 1)
EOF
  exit $?
fi

for k in 0 1 2 3; do
  for n in 1 2 3 4; do
    id=$((4 * n + k))
    for agent in BootstrapDQN IV_DQN; do
      dest="$OUT/seed_$id/cartpole_noise"
      if compgen -G "$dest/${agent}_bs_*/run.json" > /dev/null; then
        continue
      fi
      echo "[sweep] $(date -u +%FT%TZ) $agent cartpole_noise/$id"
      bash "$HERE/run.sh" "$WORK" --agents "$agent" --id-per-seed --seeds "$id"
      mkdir -p "$dest"
      for run in "$WORK/seed_$id/cartpole_noise/${agent}_bs_"*; do
        [ -f "$run/run.json" ] && rm -rf "$dest/$(basename "$run")" && cp -r "$run" "$dest/"
      done
    done
  done
done
echo "[sweep] $(date -u +%FT%TZ) done"
