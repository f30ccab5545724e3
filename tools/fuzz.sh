#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS each, one after another, and prints per target
# the seconds run, the executions and the crashes found (inputs that crash land in
# fuzz/artifacts/TARGET/; turn each into a regression test in the crate's own tests).
#   tools/fuzz.sh SECONDS [TARGET...]    (default: every target; `cargo install cargo-fuzz` first)
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
if [[ $# -lt 1 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: tools/fuzz.sh SECONDS [TARGET...]  (SECONDS: a whole number of seconds per target)" >&2
    exit 2
fi
seconds=$1
shift
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(cargo fuzz list)
fi
# Debug assertions on, so that an integer overflow is a crash, as it is in the project's tests.
cargo fuzz build --debug-assertions >&2
bin=target/x86_64-unknown-linux-gnu/release
failed=0
printf '%-18s %8s %12s %8s\n' target seconds executions crashes
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    log=artifacts/$target/last-run.log
    start=$SECONDS
    status=0
    "$bin/$target" "corpus/$target" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    crashes=$(find "artifacts/$target" -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' | wc -l)
    printf '%-18s %8d %12s %8d\n' "$target" $((SECONDS - start)) "$runs" "$crashes"
    if [[ $status -ne 0 || $crashes -ne 0 ]]; then failed=1; fi
done
exit $failed
