#!/usr/bin/env bash
# Rust kernels against the same kernels in CUDA C++, side by side, on the GPU machine, in one go.
#
#   bench/run-bench.sh OUT_DIR [--quick]
#
# Needs dist/ from `./x gpu-bundle` (dist/micro, dist/jacobi, dist/nvshmemrun, dist/COMMIT; no Rust
# toolchain here) and nvcc with NVSHMEM (Python's nvidia.nvshmem, or NVSHMEM_HOME) on this machine.
# It builds the CUDA C++ references of bench/reference into a temporary folder, then runs every
# pair of programs alternately (Rust, CUDA, Rust, CUDA: two rounds, so that drift hits both and each
# program is timed twice, which gives the noise band), and writes into OUT_DIR:
#
#   bench-DATE.md              the report: method, machine, every figure and ratio, noise, verdicts
#   bench-DATE-bandwidth.png   put/get bandwidth against size, Rust and CUDA on one plot
#   bench-DATE-bandwidth-ratio.png   the same as Rust ÷ CUDA ratios, with the ±3 % band
#   bench-DATE-latency.png     the latencies, Rust and CUDA side by side
#   bench-DATE-jacobi.png      Jacobi time per iteration per variant
#   bench-DATE-results.txt     every result line, tagged with program and round (report.py input)
#   bench-DATE.log             the full output of the builds and of every run
#
# Every run is under `timeout`, a failing or hanging run is recorded and the harness goes on; runs
# that would end past the time budget (BENCH_BUDGET_S, default 500 s) are skipped, so that the
# report is always written. Several PEs on one GPU run under MPS (started here, stopped at exit).
# Sizes can be changed through the environment: MICRO_ARGS, JACOBI_ARGS, JACOBI_CHECK_ARGS.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

OUT=${1:-}
[[ -n $OUT ]] || { echo "usage: bench/run-bench.sh OUT_DIR [--quick]" >&2; exit 2; }
QUICK=${2:-}
mkdir -p "$OUT" || exit 2
DIST=dist
START=$(date +%s)
BUDGET=${BENCH_BUDGET_S:-500}
DATE=$(date -u +%Y-%m-%d)
PREFIX=$OUT/bench-$DATE
LOG=$PREFIX.log
RESULTS=$PREFIX-results.txt
TMP=$(mktemp -d)
BUILD=$TMP/build
mkdir -p "$BUILD"
: > "$LOG"
: > "$RESULTS"

# shellcheck source=bench/lib.sh
source bench/lib.sh
nvshmem_env
export LD_LIBRARY_PATH=$NVSHMEM_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-4G}
# Kernels are loaded when the module is, not at their first launch, so that no timed launch pays
# for loading; NVLink multicast stays off (the machine's rule).
export CUDA_MODULE_LOADING=EAGER NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1

elapsed() { echo $(( $(date +%s) - START )); }
progress() { printf '[%4ss] %s\n' "$(elapsed)" "$*" | tee -a "$LOG"; }

MPS_STARTED=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    if (( MPS_STARTED )); then stop_mps >> "$LOG" 2>&1; fi
    rm -rf "$TMP"
}
trap cleanup EXIT

# ---- what is here --------------------------------------------------------------------------------
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
NVCC=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
NCCL_HOME=${NCCL_HOME:-$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)}
MACHINE=$TMP/machine.txt
{
    echo "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
    echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "gpus: $GPUS"
    echo "cpus: $(nproc)"
    echo "nvshmem: $(nvshmem_version) ($NVSHMEM_HOME)"
    echo "nccl: ${NCCL_HOME:-none}"
    echo "nvcc: $(${NVCC:-false} --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo none)"
    echo "commit: $(paste -sd' ' $DIST/COMMIT 2>/dev/null || echo unknown)"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} > "$MACHINE"
tee -a "$LOG" < "$MACHINE"

# ---- build the CUDA C++ references (in parallel) -------------------------------------------------
build_nvshmem() { # NAME: bench/reference/NAME.cu against NVSHMEM (device code linked with -rdc)
    local name=$1 nv=$NVSHMEM_HOME
    timeout 300 "$NVCC" -O3 -std=c++17 -arch=sm_90 -rdc=true -I"$nv/include" \
        -c "bench/reference/$name.cu" -o "$BUILD/$name.o" || return 1
    local link=("$NVCC" -arch=sm_90 -rdc=true "$BUILD/$name.o" -o "$BUILD/$name" -L"$nv/lib"
        -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath -Xlinker "$nv/lib")
    timeout 120 "${link[@]}" -lcuda || { echo "(linking again without -lcuda)"; timeout 120 "${link[@]}"; }
}
build_nccl() {
    [[ -f $NCCL_HOME/include/nccl.h ]] || { echo "no nccl.h under '$NCCL_HOME'"; return 1; }
    timeout 300 "$NVCC" -O3 -std=c++17 -arch=sm_90 -I"$NCCL_HOME/include" bench/reference/jacobi_nccl.cu \
        -o "$BUILD/jacobi_nccl" -L"$NCCL_HOME/lib" -l:libnccl.so.2 -Xlinker -rpath -Xlinker "$NCCL_HOME/lib"
}
if [[ -z $NVCC ]]; then
    progress "no nvcc on this machine: the CUDA C++ side is skipped"
else
    progress "building bench/reference with $NVCC"
    build_nvshmem micro > "$TMP/build-micro.log" 2>&1 &
    build_nvshmem jacobi > "$TMP/build-jacobi.log" 2>&1 &
    build_nccl > "$TMP/build-jacobi_nccl.log" 2>&1 &
    wait
    for name in micro jacobi jacobi_nccl; do
        log=$TMP/build-$name.log
        { echo "=== build $name"; cat "$log"; } >> "$LOG"
        if [[ -x $BUILD/$name ]]; then progress "built $name"; else
            progress "BUILD FAILED: $name (see the log)"; tail -n 15 "$log" | sed 's/^/      /'
            echo "skip: bench=build impl=cuda program=$name reason=build-failed" >> "$RESULTS"
        fi
    done
fi

# ---- PEs, GPUs and MPS ---------------------------------------------------------------------------
PES=2
if (( GPUS >= PES )); then PPG=1; MPS=off; else PPG=$PES; MPS=on; fi
if [[ $MPS == on ]]; then
    # a daemon left over by an earlier run
    [[ -e $CUDA_MPS_PIPE_DIRECTORY/control ]] && stop_mps > /dev/null 2>&1
    if start_mps >> "$LOG" 2>&1; then MPS_STARTED=1; else
        MPS=failed; progress "MPS did not start: PEs on one GPU time-slice, latencies will be poor"
    fi
fi
echo "pes: $PES on $(( (PES + PPG - 1) / PPG )) GPU(s), $PPG per GPU, MPS $MPS" | tee -a "$MACHINE" "$LOG"

# job NAME IMPL ROUND LIMIT COMMAND...: runs one program under `timeout`, logs its output, and keeps
# its result/check/skip lines in RESULTS, tagged with the program, the round and the job. A program
# that runs out of time is not started again for the same job (nor, after a Jacobi check, for that
# variant's timings): it would most likely hang again and eat the time budget.
declare -A TIMED_OUT
job() {
    local name=$1 impl=$2 round=$3 limit=$4
    shift 4
    if [[ -n ${TIMED_OUT["$name/$impl"]:-} ]]; then
        progress "skip $name [$impl r$round]: it ran out of time before"
        echo "job: name=$name run_impl=$impl round=$round status=skipped seconds=0" >> "$RESULTS"
        return
    fi
    local left=$(( BUDGET - $(elapsed) - 20 ))
    if (( left < 15 )); then
        progress "skip $name [$impl r$round]: the time budget (${BUDGET}s) is spent"
        echo "job: name=$name run_impl=$impl round=$round status=budget seconds=0" >> "$RESULTS"
        return
    fi
    (( limit > left )) && limit=$left
    local out=$TMP/job.out t0 status seconds
    t0=$(date +%s%N)
    timeout -k 5 "$limit" "$@" > "$out" 2>&1
    status=$?
    seconds=$(( ($(date +%s%N) - t0) / 100000000 ))
    seconds="$(( seconds / 10 )).$(( seconds % 10 ))"
    { echo "=== $name [$impl r$round] exit $status, ${seconds}s: $*"; head -c 300000 "$out"; } >> "$LOG"
    grep -aE '(result|check|skip): ' "$out" | sed -E 's/^.*((result|check|skip): )/\1/' |
        sed "s/\$/ run_impl=$impl round=$round job=$name/" >> "$RESULTS"
    echo "job: name=$name run_impl=$impl round=$round status=$status seconds=$seconds" >> "$RESULTS"
    progress "$name [$impl r$round]: exit $status in ${seconds}s, $(grep -ac 'result: ' "$out") result(s)"
    if (( status != 0 )); then tail -n 6 "$out" | sed 's/^/      /'; fi
    if (( status == 124 || status == 137 )); then
        TIMED_OUT["$name/$impl"]=1
        [[ $name == jacobi-check-* ]] && TIMED_OUT["jacobi-${name#jacobi-check-}/$impl"]=1
    fi
}

have() { [[ -x $1 ]]; }
RUN=("$DIST/nvshmemrun" -n "$PES" --pes-per-gpu "$PPG")
if ! have "$DIST/nvshmemrun"; then
    progress "dist/nvshmemrun is missing: run ./x gpu-bundle on the build machine and carry dist/"
fi

# pair NAME ROUNDS LIMIT RUST_BINARY CUDA_BINARY ARGS...: the Rust and the CUDA program alternately,
# ROUNDS times each, under the launcher.
pair() {
    local name=$1 rounds=$2 limit=$3 rust=$4 cuda=$5 round
    shift 5
    for (( round = 1; round <= rounds; round++ )); do
        if have "$rust"; then job "$name" rust "$round" "$limit" "${RUN[@]}" --timeout $((limit - 5)) "$rust" "$@"
        else progress "skip $name [rust]: $rust is missing"; fi
        if have "$cuda"; then job "$name" cuda "$round" "$limit" "${RUN[@]}" --timeout $((limit - 5)) "$cuda" "$@"
        else progress "skip $name [cuda]: $cuda is missing"; fi
    done
}

# ---- micro-benchmarks ----------------------------------------------------------------------------
if [[ $QUICK == --quick ]]; then
    MICRO_ARGS=${MICRO_ARGS:---sizes 4K,1M,16M --grids 1,sms --reps 5 --lat-iters 200}
    JACOBI_ARGS=${JACOBI_ARGS:---nx 4096 --ny 4096 --iters 200 --norm-every 50}
else
    MICRO_ARGS=${MICRO_ARGS:-}
    JACOBI_ARGS=${JACOBI_ARGS:---nx 16384 --ny 16384 --iters 1000 --norm-every 100}
fi
JACOBI_CHECK_ARGS=${JACOBI_CHECK_ARGS:---nx 1024 --ny 1024 --iters 100 --norm-every 10 --check}
# shellcheck disable=SC2086
{
    progress "micro-benchmarks, one-sided (PE 0 measures): $PES PEs, ${MICRO_ARGS:-defaults}"
    pair micro-one-sided 2 150 "$DIST/micro" "$BUILD/micro" --bench put_bw,get_bw,p_lat,put_lat $MICRO_ARGS
    progress "micro-benchmarks, two-sided (every PE takes part)"
    pair micro-two-sided 2 60 "$DIST/micro" "$BUILD/micro" --bench barrier_lat,pingpong_p,pingpong_signal $MICRO_ARGS

    # ---- Jacobi ----------------------------------------------------------------------------------
    progress "Jacobi checks (small grid, --check): $JACOBI_CHECK_ARGS"
    for variant in p put-block signal overlap persistent; do
        pair "jacobi-check-$variant" 1 45 "$DIST/jacobi" "$BUILD/jacobi" --variant "$variant" $JACOBI_CHECK_ARGS
    done
    progress "Jacobi timings: $JACOBI_ARGS"
    for variant in p put-block signal overlap persistent; do
        pair "jacobi-$variant" 2 90 "$DIST/jacobi" "$BUILD/jacobi" --variant "$variant" $JACOBI_ARGS
    done
    progress "Jacobi on one PE (T1): the CUDA single-GPU code, and put-block at 1 PE"
    RUN=("$DIST/nvshmemrun" -n 1)
    for round in 1 2; do
        have "$BUILD/jacobi" && job jacobi-single cuda "$round" 90 "${RUN[@]}" --timeout 85 "$BUILD/jacobi" \
            --variant single $JACOBI_ARGS
    done
    pair jacobi-1pe-put-block 2 90 "$DIST/jacobi" "$BUILD/jacobi" --variant put-block $JACOBI_ARGS
    if (( GPUS >= PES )) && have "$BUILD/jacobi_nccl"; then
        progress "Jacobi with NCCL halo exchange, $PES GPUs"
        RUN=("$DIST/nvshmemrun" -n "$PES")
        job jacobi-nccl-check cuda 1 60 "${RUN[@]}" --timeout 55 "$BUILD/jacobi_nccl" --variant nccl $JACOBI_CHECK_ARGS
        for round in 1 2; do
            job jacobi-nccl cuda "$round" 90 "${RUN[@]}" --timeout 85 "$BUILD/jacobi_nccl" --variant nccl $JACOBI_ARGS
        done
    else
        reason="one GPU"; (( GPUS >= PES )) && reason="jacobi_nccl not built"
        echo "na: bench=jacobi variant=nccl reason=$reason" >> "$RESULTS"
        progress "Jacobi with NCCL: n/a ($reason)"
    fi
}

if (( MPS_STARTED )); then stop_mps >> "$LOG" 2>&1; MPS_STARTED=0; fi

# ---- report --------------------------------------------------------------------------------------
progress "writing the report"
python3 bench/report.py --results "$RESULTS" --machine "$MACHINE" --prefix "$PREFIX" 2>&1 | tee -a "$LOG"
status=${PIPESTATUS[0]}
progress "done: $(ls "$OUT" | tr '\n' ' ')"
exit "$status"
