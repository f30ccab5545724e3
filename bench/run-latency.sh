#!/usr/bin/env bash
# The latency-bound regime of the Jacobi solver: small to large grids, 1 to 4 PEs on one GPU, the
# norm every iteration and every 100, every variant (and put-block replayed from CUDA graphs), Rust
# and the CUDA C++ twin alternately in one run; then the report with floors, targets and a plot.
#
#   bench/run-latency.sh OUT_DIR
#
# Needs dist/ from `./x gpu-bundle` (dist/jacobi, dist/jacobi2d-grid, dist/nvshmemrun) and nvcc with
# NVSHMEM on the GPU machine, as bench/run-bench.sh does. Writes into OUT_DIR:
#   latency-1gpu-results.txt   every result line, tagged with impl= and the job's settings
#   latency-1gpu-console.txt   what the harness printed
#   latency-1gpu.md, .png      the report and its plot (bench/reporting's latency_report), unless
#                              LAT_REPORT=0
# Runs of one PE count may be split over several calls (LAT_PES) and their results files
# concatenated for the report.
#
# Settings (environment): LAT_GRIDS (default "1024 2048 4096 8192 16384"), LAT_PES ("1 2 4"),
# LAT_NORMS ("1 100"), LAT_BUDGET_S (540), LAT_GUARD (off: no baseline guard). Iterations: 5000 up
# to 2048², 1000 above (graphs of 100).
# Exit status: 1 when a run failed or the baseline guard (bench/reporting's baseline, suite
# latency-1gpu) found a cell of this run slower than bench/baseline/<model>.json beyond the noise
# band (it names each); 0 otherwise.
# Every run is under MPS, one PE too, so that every PE count is timed under the same conditions. A
# run that fails or times out is recorded and the rest go on; runs past the budget are skipped and
# counted. A run's time is mostly NVSHMEM's start, whatever the grid, so the sweep's time follows
# its number of runs (grids × PE counts × norms × variants × both implementations): narrow LAT_GRIDS,
# LAT_PES or LAT_NORMS rather than let the budget skip the last runs.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
out_dir "${1:-}" "bench/run-latency.sh OUT_DIR"
read -ra GRIDS <<< "${LAT_GRIDS:-1024 2048 4096 8192 16384}"
read -ra PES_LIST <<< "${LAT_PES:-1 2 4}"
read -ra NORMS <<< "${LAT_NORMS:-1 100}"
BUDGET=${LAT_BUDGET_S:-540}
RESULTS=$OUT/latency-1gpu-results.txt
: > "$RESULTS"
exec > >(tee "$OUT/latency-1gpu-console.txt") 2>&1
run_env 4G
echo "gpu: $(gpu_name); nvshmem $(nvshmem_version); commit $(dist_commit)" | tee "$OUT/latency-1gpu-machine.txt"
build_twin jacobi

SKIPPED=0 FAILED=0 ORDER=0
# one IMPL PES ARGS...: one run under the launcher, its result line kept with IMPL.
one() {
    local impl=$1 pes=$2 binary=$3
    shift 3
    if (( BUDGET - $(elapsed) < 10 )); then SKIPPED=$(( SKIPPED + 1 )); return; fi
    local out
    out=$(timeout -k 5 60 "$DIST/nvshmemrun" -n "$pes" --pes-per-gpu "$pes" --timeout 55 "$binary" "$@" 2>&1)
    local status=$?
    local line
    line=$(grep -a 'result: ' <<< "$out" | tail -1 | sed -E 's/^.*result: /result: /')
    if (( status != 0 )) || [[ -z $line ]]; then
        FAILED=$(( FAILED + 1 ))
        echo "FAILED (exit $status) $impl: $binary $*"; tail -n 3 <<< "$out"
        echo "failed: impl=$impl pes=$pes status=$status args=${*// /_}" >> "$RESULTS"
    else
        echo "$line impl=$impl" >> "$RESULTS"
    fi
}
# pair PES ARGS...: Rust and CUDA C++ alternately (which goes first alternates run by run).
pair() {
    local pes=$1
    shift
    ORDER=$(( ORDER + 1 ))
    if (( ORDER % 2 )); then one rust "$pes" "$DIST/jacobi" "$@"; fi
    [[ -x $BUILD/jacobi ]] && one cuda "$pes" "$BUILD/jacobi" "$@"
    if (( ORDER % 2 == 0 )); then one rust "$pes" "$DIST/jacobi" "$@"; fi
}
for pes in "${PES_LIST[@]}"; do
    mps_up
    echo "[$(elapsed)s] $pes PE(s), MPS $( (( MPS_ON )) && echo on || echo off)"
    for n in "${GRIDS[@]}"; do
        iters=1000
        (( n <= 2048 )) && iters=5000
        for every in "${NORMS[@]}"; do
            common=(--nx "$n" --ny "$n" --iters "$iters" --norm-every "$every")
            for variant in put-block p signal overlap persistent; do
                pair "$pes" --variant "$variant" "${common[@]}"
            done
            pair "$pes" --variant put-block --graph 100 "${common[@]}"
            if (( pes > 1 )); then
                for variant in grid-pack grid-p; do
                    one rust "$pes" "$DIST/jacobi2d-grid" --variant "$variant" "${common[@]}"
                done
            fi
        done
        echo "[$(elapsed)s] $n² done"
    done
done
echo "runs: $(grep -c '^result: ' "$RESULTS") results, $FAILED failed, $SKIPPED skipped by the budget; $(elapsed) s"
if [[ ${LAT_REPORT:-1} != 0 ]]; then python3 bench/reporting latency_report "$OUT/latency-1gpu" "$RESULTS"; fi
GUARD=0
if [[ ${LAT_GUARD:-on} != off ]]; then
    python3 bench/reporting baseline check --suite latency-1gpu --results "$RESULTS" --gpu "$(gpu_name)"
    GUARD=$?
fi
(( FAILED == 0 && GUARD == 0 ))
