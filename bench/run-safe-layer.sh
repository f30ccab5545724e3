#!/usr/bin/env bash
# The safe layer's bandwidth kernels against the raw ones, side by side, on the GPU machine.
#
#   bench/run-safe-layer.sh OUT_DIR
#
# Needs dist/micro and dist/nvshmemrun. Under MPS, 2 PEs on one GPU: ROUNDS (default 4) rounds of
# `micro --bench put_bw,get_bw` with the raw kernels and with `--safe`, alternating which goes first,
# every size of SIZES at grids of 8 blocks and one block per multiprocessor; then
# bench/reporting's safe_layer_report writes OUT_DIR/safe-layer-1gpu.md (medians, safe ÷ raw, the
# noise band from the rounds' spread) and the raw lines beside it. Every case's data is checked by
# micro itself.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
set -e
out_dir "${1:-}" "bench/run-safe-layer.sh OUT_DIR"
rounds=${ROUNDS:-4}
sizes=${SIZES:-64K,1M,16M}
nvshmem_env
MPS_LOG=/dev/stderr
mps_up
for ((r = 1; r <= rounds; r++)); do
    order="raw safe"; ((r % 2 == 0)) && order="safe raw"
    for mode in $order; do
        flag=(); [[ $mode == safe ]] && flag=(--safe)
        timeout 300 "$DIST/nvshmemrun" -n 2 --pes-per-gpu 2 --timeout 280 "$DIST/micro" --bench put_bw,get_bw \
            --sizes "$sizes" --grids 8,sms "${flag[@]}" > "$TMP/$mode$r.txt" 2>&1
        if grep -h "check:" "$TMP/$mode$r.txt" | grep -qv "status=pass"; then
            echo "run-safe-layer: $mode round $r moved wrong data" >&2; exit 1
        fi
    done
done
python3 -B bench/reporting safe_layer_report "$TMP" > "$OUT/safe-layer-1gpu.md"
cat "$TMP"/*.txt > "$OUT/safe-layer-1gpu-results.txt"
head -3 "$OUT/safe-layer-1gpu.md"
