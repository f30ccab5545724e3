#!/usr/bin/env bash
# Builds everything the GPU suite (gpu-suite/run.sh) and the benchmarks (bench/run-bench.sh) run
# into dist/ (ignored by git; carry it to the GPU machine): every example and benchmark, the launcher,
# every GPU test binary (`tests/gpu*.rs` or `tests/gpu*/main.rs` of any package; the device-API
# tests also with nvshmem-gpu-tests' `nvshmem-only` feature, as gpu_device_api_nvshmem_only) and
# the starter project; and into dist-3.8/ (carried on its own) what runs against NVSHMEM 3.8.0.
# Called by `./x gpu-bundle`.
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
# The device-API tests on the kernels built with the load/store path off: the same source, so the
# same list of tests.
cargo test --release --locked -p nvshmem-gpu-tests --features nvshmem-only --test gpu_device_api "$@" \
    --no-run --message-format=json | executables | while read -r _ path; do
    cp "$path" dist/gpu_device_api_nvshmem_only
done
# The starter as a user gets it (`./x new`, built outside the repository), as dist/starter; it finds
# NVSHMEM and ptxas in this checkout's .deps by itself.
starter=$(mktemp -d)
tools/new-project.sh "$starter/starter" --name starter >/dev/null
(cd "$starter/starter" && CARGO_TARGET_DIR=$PWD/../target cargo build --release --quiet)
cp "$starter/target/release/starter" dist/starter
rm -rf "$starter"
# dist/NAME.tests: the tests each GPU test binary must hold, which the suite checks on the GPU machine.
tools/gpu-test-lists.sh dist --release --locked "${gpu_tests[@]}"
cp dist/gpu_device_api.tests dist/gpu_device_api_nvshmem_only.tests
git rev-parse HEAD > dist/COMMIT
if ! git diff --quiet HEAD; then echo "(with uncommitted changes)" >> dist/COMMIT; fi

# dist-3.8/bundle.tar.xz, carried on its own: the examples (those of gpu-suite/run.sh's
# first_load_examples) and the device API's GPU tests built against NVSHMEM 3.8.0 (sm_90), the
# tests' list, the commit, and the three files of 3.8.0 they load at run time (host library,
# unique-id bootstrap, version header) as nvshmem/, and the launcher. Packed with xz: the host
# library alone is 49.5 MB, and one device call carries 64 MiB at most.
# gpu-suite/cases/32-nvshmem-3.8.sh unpacks it and runs them against that host library. The same
# target folder serves: NVSHMEM_HOME makes the two build scripts run again, and the kernel folders
# are per release.
next=$PWD/.deps/nvshmem-3.8/nvidia/nvshmem
rm -rf dist-3.8 && mkdir -p dist-3.8
stage=$(mktemp -d)
mkdir -p "$stage/nvshmem/lib" "$stage/nvshmem/include/non_abi"
cp "$next/lib/libnvshmem_host.so.3" "$next/lib/nvshmem_bootstrap_uid.so.3" "$stage/nvshmem/lib/"
cp "$next/include/non_abi/nvshmem_version.h" "$stage/nvshmem/include/non_abi/"
{
    NVSHMEM_HOME=$next cargo build --release --locked -p ring -p jacobi -p stencil3d -p moe-alltoall \
        -p interop --bins --message-format=json
    NVSHMEM_HOME=$next cargo test --release --locked -p nvshmem-gpu-tests --test gpu_device_api "$@" --no-run \
        --message-format=json
} | executables | while read -r name path; do cp "$path" "$stage/$name"; done
cp dist/nvshmemrun dist/gpu_device_api.tests dist/COMMIT "$stage/"
tar -C "$stage" -cf - . | xz -T0 -6 > dist-3.8/bundle.tar.xz
rm -rf "$stage"
ls -la dist dist-3.8
