#!/usr/bin/env bash
# The GPU suite: runs on the GPU machine from the prebuilt binaries in dist/ (no Rust toolchain
# needed there) and prints a pass/fail table. Build dist/ with `./x gpu-bundle` first.
#
#   gpu-suite/run.sh [OUTPUT.md]
#
# The cases live in gpu-suite/cases/*.sh, run in name order, once without and once with MPS
# (MPS=off|on in their environment). Each calls `run NAME PES TIMEOUT COMMAND...`; every case runs
# under `timeout`, so one that hangs fails and the suite goes on. A case that cannot run on this
# machine calls `skip NAME PES REASON`: a SKIPPED row, counted apart from passes and failures.
# `run_under_mpirun` and `run_under_hydra` run a case's ranks under a real process manager, or skip
# it where that is missing. `gpu_tests BINARY` runs each #[ignore]d GPU test of a test binary in its
# own process.
# SUITE_CASES='gpu-suite/cases/10-*.sh ...' runs a subset.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
DIST=dist
OUT_FILE=${1:-/dev/null}
[[ -x $DIST/nvshmemrun ]] || {
    echo "gpu-suite: $DIST/ lacks the binaries; run ./x gpu-bundle on the build machine" >&2; exit 2; }

# shellcheck source=tools/gpu-env.sh
source tools/gpu-env.sh
nvshmem_env

LOG=$(mktemp -d)
rows=()
failed=0
skipped=0
# case_log NAME PES: the log file of a case in this MPS pass.
case_log() {
    echo "$LOG/$(echo "$1-$2-$MPS" | tr -c 'a-zA-Z0-9-' _).log"
}

# run NAME PES TIMEOUT COMMAND...: runs one case and records a table row.
run() {
    local name=$1 pes=$2 limit=$3 mps=$MPS; shift 3
    local log start end status verdict
    log=$(case_log "$name" "$pes")
    start=$(date +%s%N)
    timeout --kill-after=5 "$limit" "$@" >"$log" 2>&1
    status=$?
    end=$(date +%s%N)
    if [[ $status == 0 ]]; then verdict=PASS; else verdict="FAIL (exit $status)"; failed=$((failed + 1)); fi
    rows+=("| $name | $pes | $mps | $verdict | $(( (end - start) / 1000000000 )).$(( (end - start) / 100000000 % 10 )) |")
    echo "=== $name, $pes PE(s), MPS $mps: $verdict"
    sed 's/^/    /' "$log" | tail -n 40
}

# skip NAME PES REASON: records a case that cannot run here, with the reason (what to install or
# carry to run it).
skip() {
    rows+=("| $1 | $2 | $MPS | SKIPPED ($3) | - |")
    skipped=$((skipped + 1))
    echo "=== $1, $2 PE(s), MPS $MPS: SKIPPED ($3)"
}

# run_expect NAME PES STATUS SECONDS COMMAND...: a case that must end with exit STATUS within
# SECONDS (fault-injection cases: a job whose PE dies must end promptly, with that PE's status).
run_expect() {
    local name=$1 pes=$2 want=$3 bound=$4; shift 4
    run_expect_text "$name" "$pes" "$want" "$bound" "" "$@"
}

# run_expect_text NAME PES STATUS SECONDS TEXT COMMAND...: as run_expect, and the output must also
# contain TEXT (when not empty), e.g. the device's message before a trap.
run_expect_text() {
    local name=$1 pes=$2 want=$3 bound=$4 text=$5; shift 5
    local log start end status verdict ms
    log=$(case_log "$name" "$pes")
    start=$(date +%s%N)
    timeout --kill-after=5 $((bound * 4)) "$@" >"$log" 2>&1
    status=$?
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [[ -n $text ]] && ! grep -qF -- "$text" "$log"; then
        verdict="FAIL (exit $status, no \`$text\` in the output)"; failed=$((failed + 1))
    elif [[ $status == "$want" && $ms -le $((bound * 1000)) ]]; then
        verdict="PASS (exit $status as expected)"
    else
        verdict="FAIL (exit $status, expected $want within ${bound}s)"; failed=$((failed + 1))
    fi
    rows+=("| $name | $pes | $MPS | $verdict | $((ms / 1000)).$((ms / 100 % 10)) |")
    echo "=== $name, $pes PE(s), MPS $MPS: $verdict"
    sed 's/^/    /' "$log" | tail -n 40
}

# run_under_mpirun NAME PES TIMEOUT COMMAND...: COMMAND's PES ranks started by Open MPI's mpirun
# (PMIx) on this machine, or a SKIPPED row where there is no mpirun.
run_under_mpirun() {
    local name=$1 pes=$2 limit=$3; shift 3
    if ! command -v mpirun >/dev/null; then
        skip "$name" "$pes" "no mpirun on this machine"
        return
    fi
    run "$name" "$pes" "$limit" \
        mpirun --allow-run-as-root --oversubscribe -np "$pes" -x NVSHMEM_HOME -x NVSHMEM_REMOTE_TRANSPORT \
        -x NVSHMEM_DISABLE_NVLS -x NVSHMEMRS_PES_PER_GPU="$pes" "$@"
}

# run_under_hydra NAME PES TIMEOUT COMMAND...: COMMAND's PES ranks started by MPICH's hydra mpiexec
# (PMI-1) from .mpich (unpacked by gpu-suite/fetch-mpich.sh), or a SKIPPED row where .mpich is missing.
run_under_hydra() {
    local name=$1 pes=$2 limit=$3; shift 3
    if [[ ! -x .mpich/usr/bin/mpiexec.hydra ]]; then
        skip "$name" "$pes" "no .mpich: run gpu-suite/fetch-mpich.sh and carry .mpich"
        return
    fi
    run "$name" "$pes" "$limit" \
        env PATH="$PWD/.mpich/usr/bin:$PATH" LD_LIBRARY_PATH="$PWD/.mpich/usr/lib/x86_64-linux-gnu" \
        .mpich/usr/bin/mpiexec.hydra -n "$pes" -genv NVSHMEMRS_PES_PER_GPU "$pes" "$@"
}

# gpu_tests BINARY [PES]: every #[ignore]d test of a test binary, each in its own process (NVSHMEM
# initialises once per process); with PES > 1, through nvshmemrun on one GPU.
gpu_tests() {
    local binary=$1 pes=${2:-1} test
    for test in $($DIST/$binary --list --ignored --format terse 2>/dev/null | sed -n 's/: test$//p'); do
        if [[ $pes == 1 ]]; then
            run "$binary $test" 1 120 $DIST/$binary --ignored --exact "$test" --nocapture --test-threads 1
        else
            run "$binary $test" $pes 120 $DIST/nvshmemrun -n $pes --pes-per-gpu $pes --timeout 110 \
                $DIST/$binary --ignored --exact "$test" --nocapture --test-threads 1
        fi
    done
}

for MPS in off on; do
    [[ $MPS == on ]] && start_mps
    for case_file in ${SUITE_CASES:-gpu-suite/cases/*.sh}; do
        # shellcheck source=/dev/null
        source "$case_file"
    done
    [[ $MPS == on ]] && stop_mps
done

{
    echo "# GPU suite"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1), $(nproc) CPUs"
    echo "- NVSHMEM: $NVSHMEM_HOME ($(nvshmem_version))"
    echo "- commit: $(cat $DIST/COMMIT | paste -sd' ')"
    echo
    echo "| case | PEs | MPS | result | seconds |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "$((${#rows[@]} - failed - skipped)) passed, $failed failed, $skipped skipped of ${#rows[@]}"
} | tee "$OUT_FILE"
rm -rf "$LOG"
[[ $failed == 0 ]]
