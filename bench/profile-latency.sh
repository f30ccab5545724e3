#!/usr/bin/env bash
# Where an iteration's time goes at 1024² on one PE, the latency-bound regime's smallest cell: each
# variant timed as bench/run-latency.sh times it, then its kernels profiled by Nsight Compute (ncu),
# Rust and the CUDA C++ twin. The gap between the iteration and the kernels it launches is what
# launching costs; ncu says whether the kernels themselves are bound by memory, by the SMs or by
# their own latency (a grid too small to fill the GPU).
#
#   bench/profile-latency.sh OUT_DIR
#
# One PE only: ncu replays each kernel on its own, which a kernel that waits for another PE cannot
# survive, and it does not profile MPS clients. Writes OUT_DIR/latency-profile.txt (the table) and
# OUT_DIR/latency-profile-ncu.txt (ncu's raw output).
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
out_dir "${1:-}" "bench/profile-latency.sh OUT_DIR"
run_env 1G
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[[ -n $NCU ]] || { echo "profile-latency: ncu is not installed here" >&2; exit 1; }
declare -A BINARY=([rust]=$DIST/jacobi)
build_twin jacobi && BINARY[cuda]=$BUILD/jacobi
TABLE=$OUT/latency-profile.txt RAW=$OUT/latency-profile-ncu.txt
: > "$RAW"
METRICS=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,smsp__inst_executed.sum
{
    echo "gpu: $(gpu_name); nvshmem $(nvshmem_version); commit $(dist_commit)"
    echo "1 PE; us/iter timed without ncu (5000 iterations up to 2048², 1000 above); ncu: the median of"
    echo "each kernel's launches in 20 after 50 (persistent: its one launch of 200 iterations, per"
    echo "iteration); MB read or written in DRAM and million warp instructions, per launch (per iteration)"
    printf '%-5s %5s %-10s %-6s %9s | %-18s %8s %6s %6s %5s %5s %5s %6s %8s %8s\n' impl grid variant norm \
        us/iter kernel us grid block regs sm% mem% warps% dram_MB minst
} > "$TABLE"
# The cells, "grid variant cadence" each: the 1024² ones are the latency-bound targets; the 16384²
# ones are where Rust trails the twin most at 1 PE. PROFILE_CELLS (separated by commas) picks others.
CELLS=("1024 put-block 1" "1024 put-block 100" "1024 persistent 1" "1024 persistent 100"
    "16384 put-block 100" "16384 p 100")
[[ -n ${PROFILE_CELLS:-} ]] && IFS=, read -ra CELLS <<< "$PROFILE_CELLS"
for cell in "${CELLS[@]}"; do
    read -r n variant every <<< "$cell"
    for impl in rust cuda; do
        [[ -n ${BINARY[$impl]:-} ]] || continue
        timed_iters=1000
        (( n <= 2048 )) && timed_iters=5000
        args=(--variant "$variant" --nx "$n" --ny "$n" --norm-every "$every")
        line=$(timeout -k 5 60 "$DIST/nvshmemrun" -n 1 --timeout 55 "${BINARY[$impl]}" "${args[@]}" --iters "$timed_iters" 2>&1 |
            grep -a 'result: ' | tail -1)
        us=$(sed -nE 's/.*seconds_per_iter=([0-9.e-]+).*/\1/p' <<< "$line")
        us=$(awk -v s="${us:-0}" 'BEGIN { printf "%.2f", s * 1e6 }')
        csv=$TMP/ncu.csv
        # persistent is one launch for the whole run (after a warm-up launch): profile it with 200 iterations.
        iters=$timed_iters skip=50 count=20 kernels='jacobi|norm_sum|barrier_all'
        [[ $variant == persistent ]] && iters=200 skip=1 count=1 kernels=jacobi_persistent
        # At the clocks and with the caches the timed run has: ncu's defaults (base clocks, caches
        # flushed before each kernel) would time another GPU.
        timeout -k 5 300 "$NCU" --target-processes all --csv --page raw --print-units base --metrics "$METRICS" \
            --clock-control none --cache-control none \
            -k regex:"$kernels" --launch-skip "$skip" --launch-count "$count" \
            "$DIST/nvshmemrun" -n 1 --timeout 280 "${BINARY[$impl]}" "${args[@]}" --iters "$iters" \
            > "$csv" 2>> "$RAW"
        { echo "== $impl $n² $variant norm every $every"; cat "$csv"; } >> "$RAW"
        # One row per kernel name: the median of its launches.
        python3 - "$impl" "$n" "$variant" "$every" "$us" "$iters" "$csv" >> "$TABLE" <<'PY'
import csv, statistics, sys
impl, n, variant, every, us, iters, path = sys.argv[1:]
rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
if len(rows) < 3:
    print(f"{impl:<5} {n:>5} {variant:<10} {every:<6} {us:>9} | no kernels profiled (see the raw output)")
    sys.exit()
head, data = rows[0], rows[2:]
col = {name: i for i, name in enumerate(head)}
by_kernel = {}
for r in data:
    by_kernel.setdefault(r[col["Kernel Name"]], []).append(r)
def med(rs, name, scale=1.0):
    return statistics.median(float(r[col[name]].replace(",", "")) * scale for r in rs)
for name, rs in by_kernel.items():
    kernel_us = med(rs, "gpu__time_duration.sum") / 1000
    scale = 1.0
    if variant == "persistent":
        scale = 1 / int(iters)
        kernel_us *= scale
        name += "/iter"
    print(f"{impl:<5} {n:>5} {variant:<10} {every:<6} {us:>9} | {name[:18]:<18} {kernel_us:8.2f} "
          f"{med(rs, 'launch__grid_size'):6.0f} {med(rs, 'launch__block_size'):6.0f} "
          f"{med(rs, 'launch__registers_per_thread'):5.0f} "
          f"{med(rs, 'sm__throughput.avg.pct_of_peak_sustained_elapsed'):5.1f} "
          f"{med(rs, 'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed'):5.1f} "
          f"{med(rs, 'sm__warps_active.avg.pct_of_peak_sustained_active'):5.1f} "
          f"{med(rs, 'dram__bytes.sum') / 1e6 * scale:8.1f} {med(rs, 'smsp__inst_executed.sum') / 1e6 * scale:8.2f}")
PY
    done
done
cat "$TABLE"
