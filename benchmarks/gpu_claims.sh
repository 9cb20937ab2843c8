#!/bin/bash
# The papers' claims at their own scale (issue 43) and the leaderboard's tables (issue 41) on a lent GPU, prepared as
# one call of the device tool.
#
#   bash benchmarks/gpu_claims.sh                      # on the device: the three gpu claims, one process each
#   DRY=1 bash benchmarks/gpu_claims.sh                # a dry run here: the plan only, 1 episode of each call timed
#                                                      # (MEASURE=0: counts only, no call compiled)
#   LIMIT=400 bash benchmarks/gpu_claims.sh tdu_stochastic_paper   # one claim, at most 400 s of training
#   bash benchmarks/gpu_claims.sh table:cpu            # the main table (bsuite's protocol, the `cpu` profile)
#   bash benchmarks/gpu_claims.sh table:bsuite,pe_dqn_scaling_paper   # bsuite's own sweeps, and a claim
#   SUITES=all AGENTS=ids,dltv JAX_PLATFORMS=cpu bash benchmarks/gpu_claims.sh table:cpu   # the cpu profile's
#                                                      # bsuite experiments on the machine's cores (one seed a run)
#
# A `table:PROFILE` item runs every supported agent's registered default on deep_sea, deep_sea_stochastic and
# cartpole_noise under that profile, one `suite run` process per agent (each has its own calls; the store's leases keep
# two processes off one run), as `uncertain-rl suite run --profile PROFILE` would here.
#
# On the device the package is imported from the working tree with the wheels of ../shared/gpu/README.md (put them in
# an ignored `.whl/` and carry it); set WHEELS=.whl to install them first. The store starts as the committed one
# (`benchmarks/results/suite/cpu`), plus $SEED_STORE if given (the tarball of an earlier call, unpacked), so finished runs
# are skipped and a call that the time limit cut resumes from its checkpoint. Everything comes back as one file,
# $OUT/suite_gpu.tar.gz (the device returns at most 8 files, no deep folders) with the plans and logs inside; merge it
# here with `tar xzf suite_gpu.tar.gz -C /tmp && uncertain-rl suite merge benchmarks/results/suite/cpu /tmp/suite_gpu`.
set -u
CLAIMS=${1:-tdu_stochastic_paper,e_az_learned_paper,pe_dqn_scaling_paper}
AGENTS=${AGENTS:-boot_dqn,tdu,pe_dqn,iv_dqn,dqn,ddqn,ucb,ucb_infogain,vote,e_az,az,az_ube,e_az_net,az_net,az_ube_net}
SUITES=${SUITES:-deep_sea,deep_sea_stochastic,cartpole_noise}  # SUITES=all: every bsuite experiment (needs bsuite's wheels)
OUT=${OUT:-/tmp/gpu_claims_out}
STORE=${STORE:-/tmp/suite_gpu}
LIMIT=${LIMIT:-420}
LOGS=${LOGS:-/tmp/gpu_claims_logs}                   # plans and logs: into the tarball (8 files come back)
mkdir -p "$OUT" "$STORE" "$LOGS"
if [ -n "${WHEELS:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site "$WHEELS"/*.whl
  mkdir -p /tmp/site/uncertain_rl-0.0.0.dist-info
  printf 'Metadata-Version: 2.1\nName: uncertain_rl\nVersion: 0.0.0\n' > /tmp/site/uncertain_rl-0.0.0.dist-info/METADATA
  export PYTHONPATH=/tmp/site:$PWD
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false           # several processes share the GPU
run() { python3 -m uncertain_rl "$@"; }
run suite merge "$STORE" benchmarks/results/suite/cpu ${SEED_STORE:+"$SEED_STORE"} | tail -1
touch /tmp/gpu_claims_merged                         # what is newer than this comes back
plan() {                                              # plan ITEM [--measure K] > FILE: a claim's or a table's plan
  local item=$1; shift
  case $item in
    table:*) run suite plan run --agents "$AGENTS" --suite "$SUITES" --profile "${item#table:}" --out "$STORE" "$@" ;;
    *) run suite plan claims --claims "$item" --out "$STORE" "$@" ;;
  esac
}
if [ -n "${DRY:-}" ]; then
  for c in ${CLAIMS//,/ }; do plan "$c" --measure "${MEASURE:-1}" > "$LOGS/plan_${c/:/_}.md"; tail -1 "$LOGS/plan_${c/:/_}.md"; done
  exit 0
fi
python3 -c "import jax; print(jax.devices())" > "$OUT/devices.txt" 2>&1
for c in ${CLAIMS//,/ }; do                           # one process per claim, and per agent of a table
  case $c in
    table:*)
      for a in ${AGENTS//,/ }; do
        timeout --signal=INT "$LIMIT" python3 -m uncertain_rl suite run --agents "$a" --suite "$SUITES" \
          --profile "${c#table:}" --out "$STORE" --no-progress > "$LOGS/${c/:/_}_$a.log" 2>&1 &
      done ;;
    *)
      timeout --signal=INT "$LIMIT" python3 -m uncertain_rl suite claims --claims "$c" --out "$STORE" --no-progress \
        > "$LOGS/$c.log" 2>&1 & ;;
  esac
done
wait
for c in ${CLAIMS//,/ }; do plan "$c" > "$LOGS/plan_after_${c/:/_}.md"; echo "$c: $(tail -1 "$LOGS/plan_after_${c/:/_}.md")"; done
# the device returns at most 8 files of 16 MiB: the store's database and only the logs written here (the committed
# ones are in the checkout); merge it here as before
(cd "$(dirname "$STORE")" && find "$(basename "$STORE")" -type f -newer /tmp/gpu_claims_merged ! -name 'results.sqlite*' \
  ! -path '*/checkpoints/*' > /tmp/gpu_claims_new && tar czf "$OUT/suite_gpu.tar.gz" "$(basename "$STORE")"/results.sqlite* \
  -T /tmp/gpu_claims_new -C "$(dirname "$LOGS")" "$(basename "$LOGS")")
ls -la "$OUT"
