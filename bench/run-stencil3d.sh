#!/usr/bin/env bash
# The 3-D halo exchange against its CUDA C++ twin: examples/stencil3d and bench/reference/stencil3d.cu
# at 128³, 256³ and 512³, 1, 2, 4 and 8 PEs on one GPU under MPS, 7-point and 27-point, f32 and f64,
# Rust and CUDA C++ alternately; then a table of ms per iteration with Rust ÷ C++ per cell.
#
#   bench/run-stencil3d.sh OUT_DIR
#
# Needs dist/ from `./x gpu-bundle` (dist/stencil3d, dist/nvshmemrun) and nvcc with NVSHMEM on the
# GPU machine, as bench/run-bench.sh does. Writes OUT_DIR/stencil3d-results.txt (every result line,
# tagged impl=rust|cuda) and OUT_DIR/stencil3d.md (the table). Settings: S3D_SIZES ("128 256 512"),
# S3D_PES ("1 2 4 8"), S3D_ITERS (20), S3D_RUN_LIMIT (60 seconds a run). Both sides time their
# iterations from the host (launches queued back to back, waited for at the end), after the same
# set-up. The Rust run measures the copy rate beside it; the table gives both sides' fraction of
# that floor.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
out_dir "${1:-}" "bench/run-stencil3d.sh OUT_DIR"
read -ra SIZES <<< "${S3D_SIZES:-128 256 512}"
read -ra PES_LIST <<< "${S3D_PES:-1 2 4 8}"
ITERS=${S3D_ITERS:-20}
# A run's limit in seconds: a few seconds is what a cell takes; a hang costs no more than this.
RUN_LIMIT=${S3D_RUN_LIMIT:-60}
RESULTS=$OUT/stencil3d-results.txt
: > "$RESULTS"
# 512³ f64 on one PE: two arrays of 1.2 GB and the packing buffer.
run_env 3G
mps_up
echo "gpu: $(gpu_name); nvshmem $(nvshmem_version); MPS $( (( MPS_ON )) && echo on || echo off)"
build_twin stencil3d

FAILED=0 ORDER=0
# one IMPL PES BINARY ARGS...: one run under the launcher, its result lines kept with IMPL.
one() {
    local impl=$1 pes=$2 binary=$3 out status
    shift 3
    # Under MPS each PE may use 100/PEs of the GPU. That caps a PE's multiprocessors but reserves
    # none, so only the exchange, whose blocks wait on other PEs, is launched cooperatively, with
    # few blocks; the sweep, as large as a PE's share, is launched plainly and takes
    # multiprocessors as they come free (cooperatively it could wait for room held by the others'
    # waiting exchange blocks, for good).
    out=$(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$(( 100 / pes )) timeout -k 5 "$RUN_LIMIT" "$DIST/nvshmemrun" \
        -n "$pes" --pes-per-gpu "$pes" --timeout $(( RUN_LIMIT - 10 )) "$binary" "$@" 2>&1)
    status=$?
    if (( status != 0 )) || ! grep -q 'result: ' <<< "$out"; then
        FAILED=$(( FAILED + 1 ))
        echo "FAILED (exit $status) $impl: $binary $*"; tail -n 3 <<< "$out"
        # A run killed inside its kernels can leave MPS failed, refusing every later run of both
        # programs: start it afresh.
        if (( MPS_ON )); then
            mps_down
            mps_up || echo "MPS did not start again: later runs time-slice"
        fi
    fi
    grep -a 'result: ' <<< "$out" | sed -E "s/^.*result: /result: /; s/\$/ impl=$impl/" >> "$RESULTS"
}
for n in "${SIZES[@]}"; do
    for pes in "${PES_LIST[@]}"; do
        args=(--nx "$n" --ny "$n" --nz "$n" --iters "$ITERS")
        ORDER=$(( ORDER + 1 ))
        if (( ORDER % 2 )); then one rust "$pes" "$DIST/stencil3d" "${args[@]}"; fi
        [[ -x $BUILD/stencil3d ]] && one cuda "$pes" "$BUILD/stencil3d" "${args[@]}"
        if (( ORDER % 2 == 0 )); then one rust "$pes" "$DIST/stencil3d" "${args[@]}"; fi
        echo "$n³, $pes PE(s) done"
    done
done
{
    echo "# stencil3d: 3-D Jacobi, one GPU (MPS), Rust against CUDA C++"
    echo
    echo "- machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
    echo "- commit: $(dist_commit)"
    echo "- ms per iteration (exchange + sweep, launches queued back to back), $ITERS iterations"
    echo "- floor: every cell read once and written once per iteration, at the GPU's device-to-device"
    echo "  copy rate (copy GB/s): the highest that a Rust run of this benchmark measured (PE 0 copies"
    echo "  with its MPS share of the GPU, so runs of one PE measure the whole GPU's); \"of floor\" ="
    echo "  that time ÷ the measured one"
    echo
    echo "| n | PEs | grid | points | type | Rust ms | C++ ms | Rust ÷ C++ | copy GB/s | Rust of floor | C++ of floor |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    awk '$1 == "result:" {
        delete v
        for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        key = v["n"] " | " v["pes"] " | " v["grid"] " | " v["points"] " | " v["precision"]
        if (!(key in seen)) { seen[key] = 1; order[++count] = key }
        ms[key, v["impl"]] = v["ms_per_iter"]
        if (v["impl"] == "rust") { bytes[key] = v["bytes_per_iter"]; if (v["copy_gbps"] + 0 > copy + 0) copy = v["copy_gbps"] + 0 }
    }
    END {
        for (i = 1; i <= count; i++) {
            k = order[i]; r = ms[k, "rust"]; c = ms[k, "cuda"]
            ratio = (r != "" && c != "" && c > 0) ? sprintf("%.2f", r / c) : "-"
            floor_ms = (copy > 0 && bytes[k] > 0) ? bytes[k] / (copy * 1e9) * 1e3 : 0
            rf = (floor_ms > 0 && r > 0) ? sprintf("%.2f", floor_ms / r) : "-"
            cf = (floor_ms > 0 && c > 0) ? sprintf("%.2f", floor_ms / c) : "-"
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", k, (r == "" ? "-" : r), (c == "" ? "-" : c), ratio,
                (copy > 0 ? copy : "-"), rf, cf
        }
    }' "$RESULTS"
} | tee "$OUT/stencil3d.md"
(( FAILED == 0 ))
