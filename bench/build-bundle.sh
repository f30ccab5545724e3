#!/usr/bin/env bash
# Builds everything the GPU suite runs into dist/ (ignored by git; carry it to the GPU machine):
# the examples, the launcher, and the GPU test binaries. Called by `./x gpu-bundle`.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist && mkdir -p dist
cargo build --release --locked --examples
cargo build --release --locked -p nvshmem-launch --bin nvshmemrun
cp target/release/nvshmemrun target/release/examples/ring dist/
cargo test --release --locked --test gpu --no-run --message-format=json \
    | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "gpu" and m.get("executable"):
        print(m["executable"])' \
    | xargs -I{} cp {} dist/gpu-tests
git rev-parse HEAD > dist/COMMIT
if ! git diff --quiet HEAD; then echo "(with uncommitted changes)" >> dist/COMMIT; fi
ls -la dist
