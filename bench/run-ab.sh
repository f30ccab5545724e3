#!/usr/bin/env bash
# Two or more builds of the same programs side by side in one run: the change's before and after,
# where bench/run-bench.sh compares Rust with the CUDA C++ twins. Each build is a folder holding
# `micro` and `jacobi` (dist/ of `./x gpu-bundle`, or a copy of an earlier one); every cell runs
# each build in turn, the order rotating each round, so that drift and the place in the sequence
# hit every build alike.
#
#   bench/run-ab.sh OUT_DIR BUILD_DIR BUILD_DIR...      (the first build is the base of the ratios)
#
# Writes OUT_DIR/ab-results.txt (every result line, tagged build=<folder name> round=<n>) and
# OUT_DIR/ab.md (bench/reporting's ab_report: each cell's median per build and the ratios to the
# base).
# Settings: AB_JOBS ("waits jacobi": the micro-benchmarks that wait or meet, and Jacobi's cells;
# also "bandwidth": put_bw and get_bw at 64 KiB, 1 MiB and 16 MiB over 8 blocks and one per
# multiprocessor, at PE counts above 1),
# AB_ROUNDS (3), AB_PES ("1 2 4"), AB_JACOBI_VARIANTS ("put-block p signal"), AB_JACOBI_CELLS
# ("16384:1 16384:100": grid side and norm cadence). Needs dist/nvshmemrun. Exit status 1 when a
# run failed.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"
(( $# >= 3 )) || { echo "usage: bench/run-ab.sh OUT_DIR BUILD_DIR BUILD_DIR..." >&2; exit 2; }
out_dir "$1" "bench/run-ab.sh OUT_DIR BUILD_DIR BUILD_DIR..."
shift
BUILDS=("$@")
read -ra JOBS <<< "${AB_JOBS:-waits jacobi}"
read -ra PES_LIST <<< "${AB_PES:-1 2 4}"
read -ra VARIANTS <<< "${AB_JACOBI_VARIANTS:-put-block p signal}"
read -ra CELLS <<< "${AB_JACOBI_CELLS:-16384:1 16384:100}"
ROUNDS=${AB_ROUNDS:-3}
RESULTS=$OUT/ab-results.txt
: > "$RESULTS"
run_env 4G
FAILED=0
# one BUILD PES ROUND PROGRAM ARGS...: one run, its result lines tagged.
one() {
    local build=$1 pes=$2 round=$3 program=$4 out status
    shift 4
    local env_args=(NVSHMEM_DISABLE_NCCL=1)
    (( pes > 1 )) && env_args+=(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$(( 100 / pes )))
    out=$(env "${env_args[@]}" timeout -k 5 60 "$DIST/nvshmemrun" -n "$pes" --pes-per-gpu "$pes" --timeout 55 \
        "$build/$program" "$@" 2>&1)
    status=$?
    if (( status != 0 )); then
        FAILED=$(( FAILED + 1 ))
        echo "FAILED (exit $status) $build/$program at $pes PE(s): $*"; tail -n 3 <<< "$out"
    fi
    sed -nE 's/^(\[pe [0-9]+\] )?(result: .*)/\2/p' <<< "$out" |
        sed "s|\$| build=$(basename "$build") round=$round|" >> "$RESULTS"
}
mps_up || { echo "run-ab: MPS did not start" >&2; exit 2; }
for pes in "${PES_LIST[@]}"; do
    for (( round = 1; round <= ROUNDS; round++ )); do
        for (( i = 0; i < ${#BUILDS[@]}; i++ )); do
            build=${BUILDS[$(( (i + round) % ${#BUILDS[@]} ))]}
            for job in "${JOBS[@]}"; do
                case $job in
                waits)
                    # As bench/run-bench.sh runs them: the collectives with their own sizes.
                    one "$build" "$pes" "$round" micro --bench reduce_lat,alltoall_lat --grids 1 --reps 15 \
                        --lat-sizes 8,4K --lat-iters 20 --threads 256
                    two=barrier_lat
                    (( pes > 1 )) && two=barrier_lat,pingpong_p,pingpong_signal
                    one "$build" "$pes" "$round" micro --bench "$two" --grids 1 --reps 15 --lat-iters 1000
                    ;;
                jacobi)
                    for cell in "${CELLS[@]}"; do
                        for variant in "${VARIANTS[@]}"; do
                            one "$build" "$pes" "$round" jacobi --variant "$variant" --nx "${cell%%:*}" \
                                --ny "${cell%%:*}" --iters 1000 --norm-every "${cell##*:}"
                        done
                    done
                    ;;
                bandwidth)
                    (( pes > 1 )) && one "$build" "$pes" "$round" micro --bench put_bw,get_bw \
                        --sizes 64K,1M,16M --grids 8,sms
                    ;;
                *) echo "run-ab: unknown job '$job' (waits, jacobi, bandwidth)" >&2; exit 2 ;;
                esac
            done
        done
    done
    echo "$pes PE(s) done"
done
python3 bench/reporting ab_report "$RESULTS" "${BUILDS[@]##*/}" | tee "$OUT/ab.md"
(( FAILED == 0 ))
