#!/usr/bin/env bash
# moe-alltoall against its CUDA C++ twin (bench/reference/moe_alltoall.cu) on the GPU machine: both
# at 2, 4 and 8 PEs on one GPU under MPS (each PE given 100/PEs of the GPU, so that every PE's
# cooperative grid is resident), 128 to 4096 tokens per PE, the random, skewed and empty-PE
# routings, every run checked against the CPU before it is timed; then one table of microseconds per
# dispatch + combine per cell, with Rust ÷ CUDA.
#
#   bench/run-moe.sh [OUT.md]      (default bench/results/moe-alltoall.md, replaced each run)
#
# Needs dist/ from `./x gpu-bundle` (dist/moe-alltoall, dist/nvshmemrun, dist/COMMIT) and nvcc with
# NVSHMEM on this machine. MOE_PES (default "2 4 8") and MOE_ARGS (default below) change the runs.
# Exit status 1 when a run failed or a check differed, 2 when it cannot run here.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
OUT=${1:-bench/results/moe-alltoall.md}
run_env 3G
[[ -x $DIST/moe-alltoall && -x $DIST/nvshmemrun ]] || { echo "run-moe: build dist/ with ./x gpu-bundle" >&2; exit 2; }
[[ -n $NVCC ]] || { echo "run-moe: no nvcc on this machine for the CUDA C++ twin" >&2; exit 2; }
build_twin moe_alltoall || exit 1
read -ra ARGS <<< "${MOE_ARGS:---hidden 4096 --routing random,skewed,empty-pe --check --iters 50}"
MPS_LOG=/dev/stderr
mps_up || exit 2

status=0
for pes in ${MOE_PES:-2 4 8}; do
    for program in "$DIST/moe-alltoall" "$BUILD/moe_alltoall"; do
        echo "run-moe: $program at $pes PEs: ${ARGS[*]}"
        env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / pes)) timeout 600 "$DIST/nvshmemrun" -n "$pes" \
            --pes-per-gpu "$pes" --timeout 590 "$program" "${ARGS[@]}" > "$TMP/run.txt" 2>&1 ||
            { status=1; tail -n 20 "$TMP/run.txt"; }
        if grep -a 'differs' "$TMP/run.txt"; then status=1; fi
        sed -nE 's/^(\[pe [0-9]+\] )?(result: .*)/\2/p' "$TMP/run.txt" | tee -a "$TMP/results.txt"
    done
done

mkdir -p "$(dirname "$OUT")"
{
    echo "# moe-alltoall: Rust against the CUDA C++ twin"
    echo
    echo "$(gpu_name), NVSHMEM $(nvshmem_version), MPS with" \
        "100/PEs of the GPU per PE; commit $(dist_commit);" \
        "\`bench/run-moe.sh\` with ${ARGS[*]}. Time per dispatch + combine on the GPU's clock," \
        "the mean of the timed rounds; GB/s counts PE 0's rows out and back. Floor: the bytes a" \
        "round must move through the GPU's memory (per PE its tokens × k rows read and written by" \
        "the dispatch, read and written on the way back, read by the weighted sum, and its result" \
        "rows written; every PE of the GPU) at the copy rate the Rust run measured; \"of floor\" =" \
        "floor µs ÷ the measured µs."
    echo
    echo "| PEs | routing | tokens | Rust µs | CUDA µs | Rust ÷ CUDA | Rust GB/s | CUDA GB/s | floor µs | Rust of floor | CUDA of floor |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    awk '$1 == "result:" && $2 == "moe-alltoall" {
        impl = substr($3, 6); routing = $15; sub(/:$/, "", routing)
        key = $5 " | " routing " | " $7
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        us[impl, key] = $16; rate[impl, key] = $20
        if (impl == "rust" && $22 == "floor") floor[key] = $23
    }
    END {
        for (i = 1; i <= n; i++) {
            k = order[i]; r = us["rust", k]; c = us["cuda", k]
            ratio = (r != "" && c != "" && c > 0) ? sprintf("%.2f", r / c) : "-"
            f = floor[k]
            rf = (f > 0 && r > 0) ? sprintf("%.2f", f / r) : "-"
            cf = (f > 0 && c > 0) ? sprintf("%.2f", f / c) : "-"
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, (r == "" ? "-" : r), (c == "" ? "-" : c),
                ratio, (rate["rust", k] == "" ? "-" : rate["rust", k]), (rate["cuda", k] == "" ? "-" : rate["cuda", k]),
                (f == "" ? "-" : f), rf, cf
        }
    }' "$TMP/results.txt"
} > "$OUT"
cat "$OUT"
exit $status
