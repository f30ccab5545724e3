#!/usr/bin/env bash
# Rust kernels against the same kernels in CUDA C++, side by side, on the GPU machine, in one go.
#
#   bench/run-bench.sh OUT_DIR [--quick]
#
# Needs dist/ from `./x gpu-bundle` (dist/micro, dist/jacobi, dist/nvshmemrun, dist/COMMIT; no Rust
# toolchain here) and nvcc with NVSHMEM (Python's nvidia.nvshmem, or NVSHMEM_HOME) on this machine.
# It builds the CUDA C++ references of bench/reference into a temporary folder, then runs the whole
# comparison at each PE count of BENCH_PES: every pair of programs alternately, Rust and CUDA, for
# BENCH_ROUNDS rounds (Rust first in odd rounds, CUDA first in even ones, so that drift and the
# place in the sequence hit both; the spread of the rounds gives the noise band; the micro-benchmark
# rounds each leave another distance between the runners' two buffers, see round_gap), and writes
# into OUT_DIR:
#
#   bench-CONFIG.md                  the report: summary, method, machine, then one section per PE
#                                    count with every figure and ratio, noise, verdicts
#   bench-CONFIG-pesN-bandwidth.png  put/get bandwidth against size at N PEs, Rust and CUDA
#   bench-CONFIG-pesN-bandwidth-ratio.png  the same as Rust ÷ CUDA ratios, with the ±3 % band
#   bench-CONFIG-pesN-latency.png    the latencies at N PEs, Rust and CUDA side by side
#   bench-CONFIG-jacobi.png          Jacobi time per iteration per variant and PE count
#   bench-CONFIG-results.txt         every result line, tagged with program, round and PE count
#                                    (bench/reporting's report reads it)
#   bench-CONFIG-console.txt         what the harness printed (progress, the report's summary)
#   bench-CONFIG.log                 the full output of the builds and of every run
#
# CONFIG is the number of GPUs the PEs run on (1gpu, 2gpu, ...): a run replaces the files of the
# last run of its configuration (its plots first removed, so that none of an earlier run stays),
# and OUT_DIR keeps the latest report of each (git keeps the earlier ones). Pass another OUT_DIR
# to keep a run apart.
#
# Exit status: 0 when every run exited 0, every check passed, every case has its figures (the
# report says how the ratios compare, which does not change it) and the baseline guard found no
# cell slower than the last accepted figures of this GPU model (bench/reporting's baseline: Rust's
# medians against bench/baseline/<model>.json, beyond the noise band; it names every such cell); 1
# otherwise; 2 for bad settings.
#
# Order: first, for each PE count, the short runs (micro-benchmarks one-sided, two-sided and
# collective, every round; the Jacobi checks and the NCCL check, once); then the T1 single-GPU
# Jacobi, once; then the long Jacobi timings round by round (round 1 at every PE count, then round
# 2, ...; PE counts up in odd rounds and down in even ones, so MPS is switched seldom). A spent
# time budget so costs the last Jacobi rounds, never a PE count's micro-benchmarks.
#
# Every run is under `timeout`, a failing or hanging run is recorded and the harness goes on (a
# program that timed out is not started again for the same job and PE count); runs that would end
# past the time budget are skipped, so that the report is always written. PEs that share a GPU
# (more PEs than GPUs) run under MPS, started here for those runs and stopped for the others.
#
# Settings (environment):
#   BENCH_PES            PE counts (default "1 2 4")
#   BENCH_ROUNDS         rounds of each pair (default 3)
#   BENCH_JACOBI_ROUNDS  rounds of the Jacobi timings (default BENCH_ROUNDS)
#   BENCH_BUDGET_S       time budget of the whole run in seconds (default 500)
#   BENCH_GPUS           GPUs to spread the PEs over (default: every GPU of the machine; 1 puts all
#                        PEs on the first GPU, as on a machine of one GPU)
#   BENCH_GUARD          off: no baseline guard (default on)
#   MICRO_ARGS, COLLECTIVE_ARGS, JACOBI_ARGS, JACOBI_CHECK_ARGS   the programs' arguments
#                        (defaults below; set and empty: the programs' own defaults;
#                        COLLECTIVE_ARGS come after MICRO_ARGS in the collectives' job)
#
# The default budget is sized for the default run: 175 runs of a few seconds each (mostly NVSHMEM's
# start; the one-sided micro-benchmarks and the Jacobi timings are the longest), plus the builds,
# the MPS switches and the report. Where that does not fit, the order above gives up the last
# Jacobi rounds first.
# shellcheck source=bench/preamble.sh
source "$(dirname "$0")/preamble.sh"

out_dir "${1:-}" "bench/run-bench.sh OUT_DIR [--quick]"
QUICK=${2:-}
BUDGET=${BENCH_BUDGET_S:-500}
ROUNDS=${BENCH_ROUNDS:-3}
JACOBI_ROUNDS=${BENCH_JACOBI_ROUNDS:-$ROUNDS}
BENCH_PES=${BENCH_PES:-1 2 4}
read -ra PES_LIST <<< "${BENCH_PES//,/ }"
GPUS_PRESENT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
(( GPUS_PRESENT > 0 )) || { echo "run-bench: no GPU found ('nvidia-smi -L' lists none): run it on the GPU machine" >&2; exit 2; }
GPUS=${BENCH_GPUS:-$GPUS_PRESENT}
for value in "$BUDGET" "$ROUNDS" "$JACOBI_ROUNDS" "$GPUS" "${PES_LIST[@]}"; do
    [[ $value =~ ^[1-9][0-9]*$ ]] || {
        echo "run-bench: BENCH_PES, BENCH_ROUNDS, BENCH_JACOBI_ROUNDS, BENCH_BUDGET_S and BENCH_GPUS take whole numbers ≥ 1, not '$value'" >&2
        exit 2
    }
done
(( GPUS <= GPUS_PRESENT )) || {
    echo "run-bench: BENCH_GPUS=$GPUS, but this machine has $GPUS_PRESENT GPU(s); set at most $GPUS_PRESENT" >&2
    exit 2
}
(( ${#PES_LIST[@]} )) || { echo "run-bench: BENCH_PES is empty" >&2; exit 2; }
mapfile -t PES_LIST < <(printf '%s\n' "${PES_LIST[@]}" | sort -nu)
CONFIG=${GPUS}gpu
PREFIX=$OUT/bench-$CONFIG
# This run replaces the last one of its configuration: its report and plots go now (the plots a
# run writes depend on its PE counts), its log, results and console are written anew.
rm -f "$PREFIX.md" "$PREFIX"-pes*.png "$PREFIX-jacobi.png"
LOG=$PREFIX.log
RESULTS=$PREFIX-results.txt
MPS_LOG=$LOG
: > "$LOG"
: > "$RESULTS"
exec > >(tee "$PREFIX-console.txt") 2>&1
CONSOLE_TEE=$!

if [[ $QUICK == --quick ]]; then
    MICRO_ARGS=${MICRO_ARGS---sizes 4K,1M,16M --grids 1,sms --reps 5 --lat-iters 200}
    JACOBI_ARGS=${JACOBI_ARGS---nx 4096 --ny 4096 --iters 200 --norm-every 50}
else
    # The sizes and grids of the last committed report (the programs' defaults, 5 sizes x 4 grids,
    # would not fit the budget at three PE counts), with 15 timed launches per case instead of 5
    # and the programs' 1000 operations per latency launch instead of 200, against the noise.
    MICRO_ARGS=${MICRO_ARGS---sizes 4K,1M,16M --grids 1,sms --reps 15 --lat-iters 1000}
    JACOBI_ARGS=${JACOBI_ARGS---nx 16384 --ny 16384 --iters 1000 --norm-every 100}
fi
JACOBI_CHECK_ARGS=${JACOBI_CHECK_ARGS---nx 1024 --ny 1024 --iters 100 --norm-every 10 --check}
# The collectives' own arguments, after MICRO_ARGS (so that they win): latency sizes; few calls per
# launch, since one thread alone reduces 4 KiB from every PE for hundreds of microseconds or more;
# blocks of 256 threads, since NVSHMEM's block-scope reduction needs more than 128 registers per
# thread in both programs (a block of 512 does not fit on a multiprocessor; one of 256 always does).
COLLECTIVE_ARGS=${COLLECTIVE_ARGS---lat-sizes 8,4K --lat-iters 20 --threads 256}
VARIANTS=(p put-block signal overlap persistent)

run_env 4G
# NVLink multicast stays off (the machine's rule).
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1

progress() { printf '[%4ss] %s\n' "$(elapsed)" "$*" | tee -a "$LOG"; }

# ---- what is here --------------------------------------------------------------------------------
NCCL_HOME=${NCCL_HOME:-$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)}
MACHINE=$TMP/machine.txt
{
    echo "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
    echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
    if (( GPUS == GPUS_PRESENT )); then echo "gpus: $GPUS"; else echo "gpus: $GPUS of the machine's $GPUS_PRESENT"; fi
    echo "cpus: $(nproc)"
    echo "nvshmem: $(nvshmem_version) ($NVSHMEM_HOME)"
    echo "nccl: ${NCCL_HOME:-none}"
    echo "nvcc: $(${NVCC:-false} --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' || echo none)"
    echo "commit: $(paste -sd' ' "$DIST/COMMIT" 2>/dev/null || echo unknown)"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "pes: ${PES_LIST[*]}"
    echo "rounds: $ROUNDS"
    echo "jacobi_rounds: $JACOBI_ROUNDS"
    echo "budget: $BUDGET"
    echo "micro_args: $MICRO_ARGS"
    echo "collective_args: $COLLECTIVE_ARGS"
    echo "jacobi_args: $JACOBI_ARGS"
    echo "jacobi_check_args: $JACOBI_CHECK_ARGS"
} > "$MACHINE"
tee -a "$LOG" < "$MACHINE"

# ---- build the CUDA C++ references (in parallel) -------------------------------------------------
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
    builds=($!)
    build_nvshmem jacobi > "$TMP/build-jacobi.log" 2>&1 &
    builds+=($!)
    build_nccl > "$TMP/build-jacobi_nccl.log" 2>&1 &
    builds+=($!)
    # The builds by their PIDs: a bare `wait` also waits for the console's tee, which never ends.
    wait "${builds[@]}"
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
# use_pes N: the launcher's command line for N PEs (RUN), K = ceil(N / GPUs) PEs per GPU, and MPS
# running exactly when PEs share a GPU. The first time at N, its line goes into the machine file.
MPS=off
MPS_BROKEN=0
declare -A PES_SEEN
use_pes() {
    PES=$1
    PPG=$(( (PES + GPUS - 1) / GPUS ))
    if (( BUDGET - $(elapsed) - 20 < 15 )); then
        :  # nothing more runs (job skips every run): MPS stays as it is
    elif (( PPG > 1 )); then
        if (( MPS_ON )); then MPS=on
        elif (( MPS_BROKEN )); then MPS=failed
        elif mps_up; then MPS=on; progress "MPS started"
        else
            MPS_BROKEN=1; MPS=failed
            progress "MPS did not start: PEs on one GPU time-slice, latencies will be poor"
        fi
    else
        if (( MPS_ON )); then mps_down; progress "MPS stopped"; fi
        MPS=off
    fi
    RUN=("$DIST/nvshmemrun" -n "$PES" --pes-per-gpu "$PPG")
    if [[ -z ${PES_SEEN[$PES]:-} ]]; then
        PES_SEEN[$PES]=1
        echo "pes-$PES: $PES on $(( (PES + PPG - 1) / PPG )) GPU(s), $PPG per GPU, MPS $MPS" | tee -a "$MACHINE" "$LOG"
    fi
}

# job NAME IMPL ROUND LIMIT COMMAND...: runs one program under `timeout`, logs its output, and keeps
# its result/check/skip lines in RESULTS, tagged with the program, the round, the job and the PE
# count. A program that runs out of time is not started again for the same job and PE count (nor,
# after a Jacobi check, for that variant's timings at that PE count): it would most likely hang
# again and eat the time budget.
declare -A TIMED_OUT
FAILED_RUNS=0
job() {
    local name=$1 impl=$2 round=$3 limit=$4
    shift 4
    local what="$name [$impl, $PES PE(s), r$round]"
    if [[ -n ${TIMED_OUT["$name/$impl/$PES"]:-} ]]; then
        progress "skip $what: it ran out of time before"
        echo "job: name=$name run_impl=$impl round=$round pes=$PES mps=$MPS status=skipped seconds=0" >> "$RESULTS"
        return
    fi
    local left=$(( BUDGET - $(elapsed) - 20 ))
    if (( left < 15 )); then
        progress "skip $what: the time budget (${BUDGET}s) is spent"
        echo "job: name=$name run_impl=$impl round=$round pes=$PES mps=$MPS status=budget seconds=0" >> "$RESULTS"
        return
    fi
    (( limit > left )) && limit=$left
    local out=$TMP/job.out t0 status seconds
    t0=$(date +%s%N)
    timeout -k 5 "$limit" "$@" > "$out" 2>&1
    status=$?
    seconds=$(( ($(date +%s%N) - t0) / 100000000 ))
    seconds="$(( seconds / 10 )).$(( seconds % 10 ))"
    { echo "=== $what exit $status, ${seconds}s: $*"; head -c 300000 "$out"; } >> "$LOG"
    grep -aE '(result|check|skip): ' "$out" | sed -E 's/^.*((result|check|skip): )/\1/' |
        sed "s/\$/ run_impl=$impl round=$round job=$name run_pes=$PES/" >> "$RESULTS"
    echo "job: name=$name run_impl=$impl round=$round pes=$PES mps=$MPS status=$status seconds=$seconds" >> "$RESULTS"
    progress "$what: exit $status in ${seconds}s, $(grep -ac 'result: ' "$out") result(s)"
    if (( status != 0 )); then tail -n 6 "$out" | sed 's/^/      /'; fi
    # A run fails when it does not exit 0 or one of its checks failed (the programs exit 1 then,
    # but the harness does not rely on that).
    if (( status != 0 )) || grep -aqE '^(check: .*status=fail|result: .*check=fail)' "$out"; then
        FAILED_RUNS=$(( FAILED_RUNS + 1 ))
    fi
    if (( status == 124 || status == 137 )); then
        TIMED_OUT["$name/$impl/$PES"]=1
        [[ $name == jacobi-check-* ]] && TIMED_OUT["jacobi-${name#jacobi-check-}/$impl/$PES"]=1
    fi
}

have() { [[ -x $1 ]]; }
if ! have "$DIST/nvshmemrun"; then
    progress "dist/nvshmemrun is missing: run ./x gpu-bundle on the build machine and carry dist/"
fi

# pair NAME ROUND LIMIT RUST_BINARY CUDA_BINARY ARGS...: one round of the pair under the launcher at
# the current PE count: Rust then CUDA in odd rounds, CUDA then Rust in even ones.
pair() {
    local name=$1 round=$2 limit=$3 impl binary
    local -A binaries=([rust]=$4 [cuda]=$5)
    shift 5
    local order=(rust cuda)
    (( round % 2 == 0 )) && order=(cuda rust)
    for impl in "${order[@]}"; do
        binary=${binaries[$impl]}
        if have "$binary"; then job "$name" "$impl" "$round" "$limit" "${RUN[@]}" --timeout $((limit - 5)) "$binary" "$@"
        else
            progress "skip $name [$impl]: $binary is missing"
            echo "job: name=$name run_impl=$impl round=$round pes=$PES mps=$MPS status=missing seconds=0" >> "$RESULTS"
            FAILED_RUNS=$(( FAILED_RUNS + 1 ))
        fi
    done
}

# nccl_at N: whether the NCCL Jacobi runs at N PEs (one PE per GPU); else prints why not.
nccl_at() {
    if (( $1 > GPUS )); then echo "$1 PEs, $GPUS GPU(s)"; return 1; fi
    if ! have "$BUILD/jacobi_nccl"; then echo "jacobi_nccl not built"; return 1; fi
}

# round_gap ROUND: the bytes both micro runners leave between their two buffers in that round,
# (ROUND - 1) MiB: the rounds, and so the noise band taken over them, span as many buffer layouts.
# With one layout for every round, the band missed what the layout alone does to some ratios
# (±10 % for get_bw at 1 MiB over all multiprocessors; within a run, the runners also spread a
# case's launches over the buffers).
round_gap() { echo $(( ($1 - 1) << 20 )); }

# Per PE count: three micro-benchmark pairs (one-sided, two-sided, collectives) each round, a Jacobi
# check pair per variant, a Jacobi timing pair per variant and Jacobi round; then T1 once.
runs=$(( ${#PES_LIST[@]} * (6 * ROUNDS + 2 * ${#VARIANTS[@]} + 2 * ${#VARIANTS[@]} * JACOBI_ROUNDS) + 1 ))
progress "plan: PE counts ${PES_LIST[*]}, $ROUNDS round(s) (Jacobi timings $JACOBI_ROUNDS), about $runs runs, budget ${BUDGET}s"

# shellcheck disable=SC2086 # the *_ARGS are word lists
{
    # ---- 1. for each PE count: micro-benchmarks, then the Jacobi checks ----------------------------
    for pes in "${PES_LIST[@]}"; do
        use_pes "$pes"
        progress "== $pes PE(s): micro-benchmarks, one-sided (PE 0 measures): ${MICRO_ARGS:-defaults}"
        for (( round = 1; round <= ROUNDS; round++ )); do
            pair micro-one-sided "$round" 90 "$DIST/micro" "$BUILD/micro" --bench put_bw,get_bw,p_lat,put_lat \
                --gap "$(round_gap "$round")" $MICRO_ARGS
        done
        two_sided=barrier_lat,pingpong_p,pingpong_signal
        if (( pes == 1 )); then
            # Both programs refuse a ping-pong with one PE ("needs 2 PEs", exit 1); a barrier of one
            # PE they time.
            two_sided=barrier_lat
            for bench in pingpong_p pingpong_signal; do
                echo "skip: bench=$bench impl=both scope=thread bytes=8 grid=1 pes=1 reason=needs 2 PEs run_impl=both round=- job=micro-two-sided run_pes=1" >> "$RESULTS"
            done
        fi
        progress "== $pes PE(s): micro-benchmarks, two-sided (every PE takes part): $two_sided"
        for (( round = 1; round <= ROUNDS; round++ )); do
            pair micro-two-sided "$round" 30 "$DIST/micro" "$BUILD/micro" --bench "$two_sided" \
                --gap "$(round_gap "$round")" $MICRO_ARGS
        done
        # Collectives need NVSHMEM's full multi-PE-per-GPU mode where PEs share a GPU: MPS (on) and
        # CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 100 / PEs per GPU in every PE's environment; that
        # limit would bound the other cases' kernels too, so the collectives are a job of their own.
        progress "== $pes PE(s): micro-benchmarks, collectives (every PE takes part): reduce_lat,alltoall_lat"
        plain_run=("${RUN[@]}")
        RUN=(env NVSHMEM_DISABLE_NCCL=1)
        (( PPG > 1 )) && RUN+=(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$(( 100 / PPG )))
        RUN+=("${plain_run[@]}")
        for (( round = 1; round <= ROUNDS; round++ )); do
            pair micro-collectives "$round" 60 "$DIST/micro" "$BUILD/micro" --bench reduce_lat,alltoall_lat \
                --gap "$(round_gap "$round")" $MICRO_ARGS $COLLECTIVE_ARGS
        done
        RUN=("${plain_run[@]}")
        progress "== $pes PE(s): Jacobi checks: $JACOBI_CHECK_ARGS"
        for variant in "${VARIANTS[@]}"; do
            pair "jacobi-check-$variant" 1 30 "$DIST/jacobi" "$BUILD/jacobi" --variant "$variant" $JACOBI_CHECK_ARGS
        done
        if (( pes > 1 )); then
            if reason=$(nccl_at "$pes"); then
                job jacobi-nccl-check cuda 1 30 "${RUN[@]}" --timeout 25 "$BUILD/jacobi_nccl" --variant nccl $JACOBI_CHECK_ARGS
            else
                echo "na: bench=jacobi variant=nccl pes=$pes reason=$reason" >> "$RESULTS"
                progress "Jacobi with NCCL at $pes PEs: n/a ($reason)"
            fi
        fi
    done

    # ---- 2. T1, then the Jacobi timings round by round ---------------------------------------------
    progress "== Jacobi timings: $JACOBI_ARGS; first T1, the CUDA single-GPU code on one PE"
    use_pes 1
    have "$BUILD/jacobi" && job jacobi-single cuda 1 60 "${RUN[@]}" --timeout 55 "$BUILD/jacobi" --variant single $JACOBI_ARGS
    for (( round = 1; round <= JACOBI_ROUNDS; round++ )); do
        order=("${PES_LIST[@]}")
        if (( round % 2 == 0 )); then mapfile -t order < <(printf '%s\n' "${PES_LIST[@]}" | sort -nr); fi
        for pes in "${order[@]}"; do
            use_pes "$pes"
            progress "== Jacobi round $round at $pes PE(s)"
            for variant in "${VARIANTS[@]}"; do
                pair "jacobi-$variant" "$round" 60 "$DIST/jacobi" "$BUILD/jacobi" --variant "$variant" $JACOBI_ARGS
            done
            if (( pes > 1 )) && nccl_at "$pes" > /dev/null; then
                job jacobi-nccl cuda "$round" 60 "${RUN[@]}" --timeout 55 "$BUILD/jacobi_nccl" --variant nccl $JACOBI_ARGS
            fi
        done
    done
}

mps_down

# ---- report --------------------------------------------------------------------------------------
echo "elapsed: $(elapsed)" >> "$MACHINE"
progress "writing the report"
python3 bench/reporting report --results "$RESULTS" --machine "$MACHINE" --prefix "$PREFIX" 2>&1 | tee -a "$LOG"
status=${PIPESTATUS[0]}
guard=0
if [[ ${BENCH_GUARD:-on} != off ]]; then
    python3 bench/reporting baseline check --suite "bench-$CONFIG" --results "$RESULTS" --machine "$MACHINE" \
        --gpu "$(gpu_name)" 2>&1 | tee -a "$LOG"
    guard=${PIPESTATUS[0]}
fi
progress "done: $(find "$OUT" -maxdepth 1 -type f -name "bench-$CONFIG[.-]*" -printf '%f\n' | sort | tr '\n' ' ')"
if (( FAILED_RUNS > 0 )); then
    progress "FAILED: $FAILED_RUNS run(s) did not exit 0 or had a failed check (see the report and the log)"
    (( status == 0 )) && status=1
elif (( status != 0 )); then
    progress "FAILED: the report found failures (exit $status)"
fi
if (( guard != 0 )); then
    progress "FAILED: the baseline guard found cells slower than bench/baseline (named above)"
    status=1
fi
# The console file is complete when the harness returns.
exec > /dev/null 2>&1
wait "$CONSOLE_TEE"
exit "$status"
