#!/bin/bash
# The papers' claims at their own scale on a lent GPU (issue 43), prepared as one call of the device tool.
#
#   bash benchmarks/gpu_claims.sh                      # on the device: the three gpu claims, one process each
#   DRY=1 bash benchmarks/gpu_claims.sh                # a dry run here: the plan only, 1 episode of each call timed
#   LIMIT=400 bash benchmarks/gpu_claims.sh tdu_stochastic_paper   # one claim, at most 400 s of training
#
# On the device the package is imported from the working tree with the wheels of ../shared/gpu/README.md (put them in
# an ignored `.whl/` and carry it); set WHEELS=.whl to install them first. The store starts as the committed one
# (`benchmarks/results/suite/cpu`), plus $SEED_STORE if given (the tarball of an earlier call, unpacked), so finished runs
# are skipped and a call that the time limit cut resumes from its checkpoint. Everything comes back as one file,
# $OUT/suite_gpu.tar.gz (the device returns no deep folders), with the plan and one log per claim beside it; merge it
# here with `tar xzf suite_gpu.tar.gz -C /tmp && uncertain-rl suite merge benchmarks/results/suite/cpu /tmp/suite_gpu`.
set -u
CLAIMS=${1:-tdu_stochastic_paper,e_az_learned_paper,pe_dqn_scaling_paper}
OUT=${OUT:-/tmp/gpu_claims_out}
STORE=${STORE:-/tmp/suite_gpu}
LIMIT=${LIMIT:-420}
mkdir -p "$OUT" "$STORE"
if [ -n "${WHEELS:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site "$WHEELS"/*.whl
  mkdir -p /tmp/site/uncertain_rl-0.0.0.dist-info
  printf 'Metadata-Version: 2.1\nName: uncertain_rl\nVersion: 0.0.0\n' > /tmp/site/uncertain_rl-0.0.0.dist-info/METADATA
  export PYTHONPATH=/tmp/site:$PWD
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false           # several processes share the GPU
run() { python3 -m uncertain_rl "$@"; }
run suite merge "$STORE" benchmarks/results/suite/cpu ${SEED_STORE:+"$SEED_STORE"} | tail -1
if [ -n "${DRY:-}" ]; then
  run suite plan claims --claims "$CLAIMS" --out "$STORE" --measure 1 > "$OUT/plan.md"; tail -1 "$OUT/plan.md"; exit 0
fi
python3 -c "import jax; print(jax.devices())" > "$OUT/devices.txt" 2>&1
for c in ${CLAIMS//,/ }; do                           # one process per claim: each has its own calls
  timeout --signal=INT "$LIMIT" python3 -m uncertain_rl suite claims --claims "$c" --out "$STORE" --no-progress \
    > "$OUT/$c.log" 2>&1 &
done
wait
run suite plan claims --claims "$CLAIMS" --out "$STORE" > "$OUT/plan_after.md"; tail -1 "$OUT/plan_after.md"
tar czf "$OUT/suite_gpu.tar.gz" -C "$(dirname "$STORE")" "$(basename "$STORE")"
ls -la "$OUT"
