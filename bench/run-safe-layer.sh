#!/usr/bin/env bash
# The safe layer's bandwidth kernels against the raw ones, side by side, on the GPU machine.
#
#   bench/run-safe-layer.sh OUT_DIR
#
# Needs dist/micro and dist/nvshmemrun. Under MPS, 2 PEs on one GPU: ROUNDS (default 4) rounds of
# `micro --bench put_bw,get_bw` with the raw kernels and with `--safe`, alternating which goes first,
# every size of SIZES at grids of 8 blocks and one block per multiprocessor; then
# bench/safe_layer_report.py writes OUT_DIR/safe-layer-1gpu.md (medians, safe ÷ raw, the noise band
# from the rounds' spread) and the raw lines beside it. Every case's data is checked by micro itself.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/run-safe-layer.sh OUT_DIR}
rounds=${ROUNDS:-4}
sizes=${SIZES:-64K,1M,16M}
work=$(mktemp -d)
source tools/gpu-env.sh
nvshmem_env
start_mps
trap stop_mps EXIT
for ((r = 1; r <= rounds; r++)); do
    order="raw safe"; ((r % 2 == 0)) && order="safe raw"
    for mode in $order; do
        flag=(); [[ $mode == safe ]] && flag=(--safe)
        timeout 300 dist/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 280 dist/micro --bench put_bw,get_bw \
            --sizes "$sizes" --grids 8,sms "${flag[@]}" > "$work/$mode$r.txt" 2>&1
        if grep -h "check:" "$work/$mode$r.txt" | grep -qv "status=pass"; then
            echo "run-safe-layer: $mode round $r moved wrong data" >&2; exit 1
        fi
    done
done
mkdir -p "$out"
python3 -B bench/safe_layer_report.py "$work" > "$out/safe-layer-1gpu.md"
cat "$work"/*.txt > "$out/safe-layer-1gpu-results.txt"
head -3 "$out/safe-layer-1gpu.md"
