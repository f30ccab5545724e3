#!/usr/bin/env bash
# The GPU suite: runs on the GPU machine from the prebuilt binaries in dist/ (no Rust toolchain
# needed there) and prints a pass/fail table. Build dist/ with `./x gpu-bundle` first.
#
#   gpu-suite/run.sh [OUTPUT.md]
#
# The table is written to OUTPUT.md (default bench/results/gpu-suite.md: each run replaces the
# latest) and the whole console beside it, to OUTPUT-console.txt.
#
# The cases live in gpu-suite/cases/*.sh, run in name order, once without and once with MPS
# (MPS=off|on in their environment). Each calls `run NAME PES TIMEOUT COMMAND...`; every case runs
# under `timeout`, so one that hangs fails and the suite goes on. A case that cannot run on this
# machine calls `skip NAME PES REASON`: a SKIPPED row, counted apart from passes and failures.
# `run_under_mpirun` and `run_under_hydra` run a case's ranks under a real process manager, or skip
# it where that is missing. `gpu_tests BINARY` runs each #[ignore]d GPU test of a test binary in its
# own process (`run_test`: it passes only when libtest counts it passed), after `expect_tests` has
# checked the binary's list against dist/BINARY.tests, the tests its source declares.
# When MPS cannot be started, the MPS pass runs nothing: each of its cases is a FAIL row.
# SUITE_CASES='gpu-suite/cases/10-*.sh ...' runs a subset; SUITE_MPS=off (or on) runs one pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
DIST=dist
OUT_FILE=${1:-bench/results/gpu-suite.md}
[[ -x $DIST/nvshmemrun ]] || {
    echo "gpu-suite: $DIST/ lacks the binaries; run ./x gpu-bundle on the build machine" >&2; exit 2; }
if [[ $OUT_FILE == *.md ]]; then
    mkdir -p "$(dirname "$OUT_FILE")"
    exec > >(tee "${OUT_FILE%.md}-console.txt") 2>&1
fi

# shellcheck source=tools/gpu-env.sh
source tools/gpu-env.sh
nvshmem_env

LOG=$(mktemp -d)
rows=()
passed=0
failed=0
skipped=0
# Why the MPS pass runs nothing (empty while MPS serves it).
mps_down=""
# case_log NAME PES: the log file of a case in this MPS pass.
case_log() {
    echo "$LOG/$(echo "${CASE_LABEL:-}$1-$2-$MPS" | tr -c 'a-zA-Z0-9-' _).log"
}

# record NAME PES SECONDS VERDICT [LOG]: adds a table row, counted by its verdict's first word
# (PASS, SKIPPED; anything else is a failure), and prints it with the end of LOG. A case may set
# CASE_LABEL to put before its rows' names (the same tests against another NVSHMEM).
record() {
    local name=$1 pes=$2 seconds=$3 verdict=$4 log=${5:-}
    case $verdict in
    PASS*) passed=$((passed + 1)) ;;
    SKIPPED*) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
    esac
    name="${CASE_LABEL:+$CASE_LABEL: }$name"
    rows+=("| $name | $pes | $MPS | $verdict | $seconds |")
    echo "=== $name, $pes PE(s), MPS $MPS: $verdict"
    [[ -z $log ]] || sed 's/^/    /' "$log" | tail -n 40
}

# execute NAME PES LIMIT COMMAND...: runs COMMAND under `timeout` with its output in the case's log,
# and sets the caller's log, status and ms. In an MPS pass without MPS it runs nothing, records the
# case as failed and returns 1.
execute() {
    local name=$1 pes=$2 limit=$3 start end; shift 3
    if [[ $MPS == on && -n $mps_down ]]; then
        record "$name" "$pes" - "FAIL (not run: $mps_down)"
        return 1
    fi
    log=$(case_log "$name" "$pes")
    start=$(date +%s%N)
    timeout --kill-after=5 "$limit" "$@" >"$log" 2>&1
    status=$?
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
}

# seconds MS: MS as seconds with one decimal.
seconds() { echo "$(($1 / 1000)).$(($1 / 100 % 10))"; }

# run NAME PES TIMEOUT COMMAND...: runs one case and records a table row.
run() {
    local name=$1 pes=$2 limit=$3 log status ms verdict; shift 3
    execute "$name" "$pes" "$limit" "$@" || return 0
    if [[ $status == 0 ]]; then verdict=PASS; else verdict="FAIL (exit $status)"; fi
    record "$name" "$pes" "$(seconds "$ms")" "$verdict" "$log"
}

# run_test NAME PES TIMEOUT COMMAND...: as run, for a command that runs one libtest test (on each
# of its PES): it passes only when every `test result:` line in the output counts that one test
# passed. A test that ignored itself at run time (for lack of hardware) is SKIPPED, with its reason;
# one that ran nothing (a name the binary does not hold) fails.
run_test() {
    local name=$1 pes=$2 limit=$3 log status ms counts verdict reason; shift 3
    execute "$name" "$pes" "$limit" "$@" || return 0
    counts=$(grep -o 'test result: [A-Za-z]*\. [0-9]* passed; [0-9]* failed; [0-9]* ignored' "$log" |
        sed 's/^test result: [A-Za-z]*\. //' | sort -u | paste -sd/)
    if [[ $status != 0 ]]; then
        verdict="FAIL (exit $status)"
    elif [[ $counts == "1 passed; 0 failed; 0 ignored" ]]; then
        verdict=PASS
    elif [[ $counts =~ ^0\ passed\;\ 0\ failed\;\ [1-9][0-9]*\ ignored$ ]]; then
        reason=$(grep -o '\.\.\. ignored, .*\|\.\.\. ignored (.*)' "$log" | head -1 | sed 's/^\.\.\. ignored[, (]*//; s/)$//')
        verdict="SKIPPED (${reason:-the test ignored itself})"
    elif [[ $counts == "0 passed; 0 failed; 0 ignored" ]]; then
        verdict="FAIL (ran no test: the binary holds none of that name)"
    else
        verdict="FAIL (exit 0, but libtest counted ${counts:-no test result})"
    fi
    record "$name" "$pes" "$(seconds "$ms")" "$verdict" "$log"
}

# first_load NAME PES LIMIT COMMAND...: a program's first run on this machine against its warm run. The
# first runs with an empty JIT cache of its own (CUDA_CACHE_PATH), the second on what the first left
# there, both with the host's debug log. It passes when both succeed, the first says that it loaded
# machine code compiled ahead of time, and it took at most 1.0 s longer than the second; the row
# gives both times.
first_load() {
    local name=$1 pes=$2 limit=$3 log status ms cold_ms cold_log verdict cache; shift 3
    cache=$(mktemp -d)
    execute "$name" "$pes" "$limit" env CUDA_CACHE_PATH="$cache" RUST_LOG=nvshmem_host=debug "$@" || return 0
    cold_ms=$ms cold_log=$log
    if [[ $status != 0 ]]; then
        record "$name" "$pes" "$(seconds "$cold_ms")" "FAIL (first run: exit $status)" "$cold_log"
        rm -rf "$cache"
        return
    fi
    cp "$cold_log" "$cold_log.first"
    execute "$name" "$pes" "$limit" env CUDA_CACHE_PATH="$cache" RUST_LOG=nvshmem_host=debug "$@" || return 0
    rm -rf "$cache"
    if [[ $status != 0 ]]; then
        verdict="FAIL (warm run: exit $status)"
    elif ! grep -q "loaded the kernels' machine code" "$cold_log.first"; then
        verdict="FAIL (the first run loaded no machine code: the driver compiled the PTX)"
    elif ((cold_ms - ms > 1000)); then
        verdict="FAIL (first run $(seconds "$cold_ms") s, warm $(seconds "$ms") s: more than 1.0 s longer)"
    else
        verdict="PASS (first run $(seconds "$cold_ms") s, warm $(seconds "$ms") s)"
    fi
    cat "$cold_log.first" "$log" >"$log.both"
    record "$name" "$pes" "$(seconds "$cold_ms")" "$verdict" "$log.both"
}

# mps_share PES: in the MPS pass, the setting that gives each of PES PEs on one GPU its share of the
# multiprocessors, so that every PE's cooperative grid is resident at once (a kernel that waits for
# the others would otherwise hold up a grid left waiting for room); nothing without MPS.
mps_share() {
    if [[ $MPS == on ]]; then echo "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / $1))"; fi
}

# first_load_examples: first_load for every example in $DIST at 2 PEs on one GPU, each a short run
# (the load is what is measured, not the kernels), at the same sizes for every NVSHMEM release.
first_load_examples() {
    local launch=("$DIST"/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 100)
    first_load "first run of the ring example" 2 120 "${launch[@]}" "$DIST"/ring
    first_load "first run of jacobi put-block, 1024^2" 2 120 "${launch[@]}" "$DIST"/jacobi \
        --variant put-block --nx 1024 --ny 1024 --iters 100
    first_load "first run of jacobi2d-grid grid-pack, 1024^2" 2 120 "${launch[@]}" "$DIST"/jacobi2d-grid \
        --variant grid-pack --nx 1024 --ny 1024 --iters 100
    first_load "first run of stencil3d, 64^3" 2 120 "${launch[@]}" "$DIST"/stencil3d \
        --nx 64 --ny 64 --nz 64 --iters 10
    # shellcheck disable=SC2046 # the setting is one word, or none
    first_load "first run of moe-alltoall, 128 tokens" 2 120 env $(mps_share 2) "${launch[@]}" "$DIST"/moe-alltoall \
        --tokens 128 --hidden 4096 --iters 5
    first_load "first run of the interop example" 2 120 "${launch[@]}" "$DIST"/interop
}

# skip NAME PES REASON: records a case that cannot run here, with the reason (what to install or
# carry to run it).
skip() {
    record "$1" "$2" - "SKIPPED ($3)"
}

# run_expect NAME PES STATUS SECONDS COMMAND...: a case that must end with exit STATUS within
# SECONDS (fault-injection cases: a job whose PE dies must end promptly, with that PE's status).
run_expect() {
    local name=$1 pes=$2 want=$3 bound=$4; shift 4
    run_expect_text "$name" "$pes" "$want" "$bound" "" "$@"
}

# run_expect_text NAME PES STATUS SECONDS TEXT COMMAND...: as run_expect, and the output must also
# contain TEXT (when not empty), e.g. the device's message before a trap. STATUS '!0' takes any
# failure (a process manager that picks its own status).
run_expect_text() {
    local name=$1 pes=$2 want=$3 bound=$4 text=$5 log status ms verdict; shift 5
    execute "$name" "$pes" $((bound * 4)) "$@" || return 0
    if [[ -n $text ]] && ! grep -qF -- "$text" "$log"; then
        verdict="FAIL (exit $status, no \`$text\` in the output)"
    elif [[ ($status == "$want" || ($want == '!0' && $status != 0)) && $ms -le $((bound * 1000)) ]]; then
        verdict="PASS (exit $status as expected)"
    else
        verdict="FAIL (exit $status, expected $want within ${bound}s)"
    fi
    record "$name" "$pes" "$(seconds "$ms")" "$verdict" "$log"
}

# run_under_mpirun NAME PES TIMEOUT COMMAND...: COMMAND's PES ranks started by Open MPI's mpirun
# (PMIx) on this machine, or a SKIPPED row where there is no mpirun.
run_under_mpirun() {
    local name=$1 pes=$2 limit=$3; shift 3
    if ! command -v mpirun >/dev/null; then
        skip "$name" "$pes" "no mpirun on this machine"
        return
    fi
    run "$name" "$pes" "$limit" $(mpirun_prefix "$pes") "$@"
}

# mpirun_prefix PES: the mpirun command line that starts PES ranks on this machine, passing NVSHMEM's
# settings and the PEs per GPU on.
mpirun_prefix() {
    echo mpirun --allow-run-as-root --oversubscribe -np "$1" -x NVSHMEM_HOME -x NVSHMEM_REMOTE_TRANSPORT \
        -x NVSHMEM_DISABLE_NVLS -x NVSHMEMRS_PES_PER_GPU="$1"
}

# run_under_hydra NAME PES TIMEOUT COMMAND...: COMMAND's PES ranks started by MPICH's hydra mpiexec
# (PMI-1) from .mpich (unpacked by gpu-suite/fetch-mpich.sh), or a SKIPPED row where .mpich is missing.
run_under_hydra() {
    local name=$1 pes=$2 limit=$3; shift 3
    if [[ ! -x .mpich/usr/bin/mpiexec.hydra ]]; then
        skip "$name" "$pes" "no .mpich: run gpu-suite/fetch-mpich.sh and carry .mpich"
        return
    fi
    run "$name" "$pes" "$limit" $(hydra_prefix "$pes") "$@"
}

# hydra_prefix PES: the command line that starts PES ranks on this machine with .mpich's hydra
# mpiexec, passing the PEs per GPU on (hydra forwards the rest of the environment).
hydra_prefix() {
    echo env PATH="$PWD/.mpich/usr/bin:$PATH" LD_LIBRARY_PATH="$PWD/.mpich/usr/lib/x86_64-linux-gnu" \
        .mpich/usr/bin/mpiexec.hydra -n "$1" -genv NVSHMEMRS_PES_PER_GPU "$1"
}

# expect_tests BINARY: checks that BINARY lists (`--list --ignored`) exactly the tests of
# dist/BINARY.tests, which `./x gpu-bundle` wrote from the test's source, and sets expected_tests to
# those. A listing that fails (its stderr is in the log) or differs is a FAIL row; the tests of
# dist/BINARY.tests still run, so one the binary lacks also fails on its own row.
expect_tests() {
    local binary=$1 name="$1 --list --ignored" log listed missing unexpected status
    log=$(case_log "$name" -)
    expected_tests=()
    listed=$(timeout 60 "$DIST/$binary" --list --ignored --format terse 2>"$log")
    status=$?
    listed=$(sed -n 's/: test$//p' <<<"$listed" | LC_ALL=C sort)
    if [[ ! -f $DIST/$binary.tests ]]; then
        [[ -z $listed ]] || mapfile -t expected_tests <<<"$listed"
        record "$name" - - "FAIL (no $DIST/$binary.tests: run ./x gpu-bundle on the build machine)" "$log"
        return
    fi
    mapfile -t expected_tests <"$DIST/$binary.tests"
    if [[ $status != 0 ]]; then
        record "$name" - - "FAIL (exit $status)" "$log"
        return
    fi
    missing=$(LC_ALL=C comm -23 "$DIST/$binary.tests" - <<<"$listed" | paste -sd' ')
    unexpected=$(LC_ALL=C comm -13 "$DIST/$binary.tests" - <<<"$listed" | paste -sd' ')
    if [[ -z $missing$unexpected ]]; then
        record "$name" - - "PASS (the ${#expected_tests[@]} test(s) of $DIST/$binary.tests)"
    else
        echo "$listed" >>"$log"
        record "$name" - - "FAIL (missing: ${missing:-none}; not in $DIST/$binary.tests: ${unexpected:-none})" "$log"
    fi
}

# gpu_tests BINARY [PES]: every #[ignore]d test of a test binary, each in its own process (NVSHMEM
# initialises once per process); with PES > 1, through nvshmemrun on one GPU, and those named
# full_mpg_* (on-stream waits, collectives) in the MPS pass only, with each PE's share set.
gpu_tests() {
    local binary=$1 pes=${2:-1} test
    expect_tests "$binary"
    for test in "${expected_tests[@]}"; do
        if [[ $pes == 1 ]]; then
            run_test "$binary $test" 1 120 "$DIST/$binary" --ignored --exact "$test" --nocapture --test-threads 1
        elif [[ $test == full_mpg_* ]]; then
            # NVSHMEM's full multi-PE-per-GPU mode, as in device_api_tests: the MPS pass only.
            [[ $MPS == on ]] || continue
            run_test "$binary $test" "$pes" 120 env "$(mps_share "$pes")" "$DIST/nvshmemrun" -n "$pes" \
                --pes-per-gpu "$pes" --timeout 110 "$DIST/$binary" --ignored --exact "$test" --nocapture \
                --test-threads 1
        else
            run_test "$binary $test" "$pes" 120 "$DIST/nvshmemrun" -n "$pes" --pes-per-gpu "$pes" --timeout 110 \
                "$DIST/$binary" --ignored --exact "$test" --nocapture --test-threads 1
        fi
    done
}

# device_api_tests BINARY PES...: the device API's GPU tests of BINARY at each PES on one GPU, each
# in its own job, by name (gpu-suite/cases/30-device-api.sh says why): full_mpg_* in the MPS pass
# only, trap_* (each starts its own job) without MPS only, the others in both.
device_api_tests() {
    local binary=$1 pes test; shift
    expect_tests "$binary"
    for pes in "$@"; do
        for test in "${expected_tests[@]}"; do
            case ${test##*::} in
            full_mpg_*)
                [[ $MPS == on ]] || continue
                run_test "$binary $test" "$pes" 300 \
                    env "$(mps_share "$pes")" NVSHMEM_DISABLE_NCCL=1 \
                    "$DIST"/nvshmemrun -n "$pes" --pes-per-gpu "$pes" --timeout 290 \
                    "$DIST"/"$binary" --ignored --exact "$test" --nocapture --test-threads 1
                ;;
            trap_*)
                [[ $MPS == off ]] || continue
                run_test "$binary $test" "$pes" 150 env DEVICE_API_TRAP_PES="$pes" \
                    "$DIST"/"$binary" --ignored --exact "$test" --nocapture --test-threads 1
                ;;
            *)
                run_test "$binary $test" "$pes" 180 \
                    "$DIST"/nvshmemrun -n "$pes" --pes-per-gpu "$pes" --timeout 170 \
                    "$DIST"/"$binary" --ignored --exact "$test" --nocapture --test-threads 1
                ;;
            esac
        done
    done
}

for MPS in ${SUITE_MPS:-off on}; do
    if [[ $MPS == on ]]; then
        if start_mps >"$LOG/mps.log" 2>&1; then
            record "MPS control daemon" - - "PASS (started, answering on $CUDA_MPS_PIPE_DIRECTORY)" "$LOG/mps.log"
        else
            mps_down="MPS could not be started"
            record "MPS control daemon" - - "FAIL ($mps_down)" "$LOG/mps.log"
        fi
    fi
    for case_file in ${SUITE_CASES:-gpu-suite/cases/*.sh}; do
        # shellcheck source=/dev/null
        source "$case_file"
    done
    # A daemon that started but does not answer is stopped too, so that it cannot serve later jobs.
    [[ $MPS == on ]] && stop_mps >>"$LOG/mps.log" 2>&1
done

{
    echo "# GPU suite"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1), $(nproc) CPUs"
    echo "- NVSHMEM: $NVSHMEM_HOME ($(nvshmem_version))"
    echo "- commit: $(paste -sd' ' $DIST/COMMIT)"
    echo
    echo "| case | PEs | MPS | result | seconds |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "$passed passed, $failed failed, $skipped skipped of ${#rows[@]}"
} | tee "$OUT_FILE"
rm -rf "$LOG"
[[ $failed == 0 ]]
