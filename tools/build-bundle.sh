#!/usr/bin/env bash
# Builds everything the GPU suite (gpu-suite/run.sh) and the benchmarks (bench/run-bench.sh) run
# into dist/ (ignored by git; carry it to the GPU machine): every example and benchmark, the launcher,
# every GPU test binary (`tests/gpu*.rs` of any package) and the starter project. Called by
# `./x gpu-bundle`.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist && mkdir -p dist
executables() { # the executables cargo reports, as "name path" lines
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["executable"])'
}
# Extra flags for the test binaries (`./x gpu-bundle` adds the features the GPU tests need).
gpu_tests=(--workspace --test 'gpu*' "$@")
{
    cargo build --release --locked --workspace --bins --message-format=json
    cargo test --release --locked "${gpu_tests[@]}" --no-run --message-format=json
} | executables | while read -r name path; do cp "$path" "dist/$name"; done
# The starter as a user gets it (`./x new`, built outside the repository), as dist/starter.
starter=$(mktemp -d)
tools/new-project.sh "$starter/starter" --name starter >/dev/null
(cd "$starter/starter" && CARGO_TARGET_DIR=$PWD/../target NVSHMEM_HOME=${NVSHMEM_HOME:-$OLDPWD/.deps/python/nvidia/nvshmem} \
    cargo build --release --quiet)
cp "$starter/target/release/starter" dist/starter
rm -rf "$starter"
# dist/NAME.tests: the tests each GPU test binary must hold, which the suite checks on the GPU machine.
tools/gpu-test-lists.sh dist --release --locked "${gpu_tests[@]}"
git rev-parse HEAD > dist/COMMIT
if ! git diff --quiet HEAD; then echo "(with uncommitted changes)" >> dist/COMMIT; fi
ls -la dist
