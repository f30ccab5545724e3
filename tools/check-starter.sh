#!/usr/bin/env bash
# Builds and tests the starter as a user would, from outside the repository: `./x new` into a
# temporary folder, then `cargo build` (kernels linked with NVSHMEM's device bitcode and assembled
# by ptxas) and `cargo test` there. Run by `./x test` after the workspace's tests: with
# CARGO_TARGET_DIR at this checkout's target/, the nvshmem-rs crates built for those are reused, and
# so is the starter's own kernel build (core for the GPU) from the last run.
# Also checks what tools/new-project.sh refuses. Needs ptxas on PATH (./x puts it there).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$SECONDS
fail() { echo "check-starter: $1" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# refused TEXT ARGS...: new-project.sh ARGS must fail, saying TEXT, and create nothing.
refused() {
    local text=$1 output; shift
    if output=$(tools/new-project.sh "$@" 2>&1); then fail "new-project.sh $* was accepted"; fi
    [[ $output == *"$text"* ]] || fail "new-project.sh $* failed without saying \`$text\`: $output"
    [[ ! -e $work/new ]] || fail "new-project.sh $* failed but left $work/new behind"
}
mkdir "$work/full" && echo mine > "$work/full/file"
refused "is not empty" "$work/full"
refused "is not a folder" "$work/full/file"
refused "not a valid package name" "$work/new" --name "My Project"
refused "cargo refuses" "$work/new" --name fn
refused "unknown option" "$work/new" --nmae x
[[ $(cat "$work/full/file") == mine ]] || fail "a refused new-project.sh changed $work/full/file"

cmp -s rust-toolchain.toml starter/rust-toolchain.toml ||
    fail "starter/rust-toolchain.toml differs from rust-toolchain.toml; copy ours over it"

project=$work/starter-check
tools/new-project.sh "$project" >/dev/null
if leftover=$(grep -rn -e nvshmem-starter -e nvshmem_starter -e NVSHMEM_STARTER -e /path/to/nvshmem-rs "$project"); then
    fail "new-project.sh left the starter's placeholders in: $leftover"
fi
export CARGO_TARGET_DIR=$repo/target NVSHMEM_HOME=$repo/.deps/python/nvidia/nvshmem
(
    cd "$project"
    # The builder only warns when it cannot assemble the PTX; here that is a failure.
    cargo build 2>&1 | tee "$work/build.log"
    if grep -q "ptxas was not found" "$work/build.log"; then
        fail "the starter's PTX was not assembled: put ptxas on PATH (./x test does)"
    fi
    cargo test
    cargo fmt --check
)
echo "check-starter: the starter built and passed its tests outside the repository in $((SECONDS - started)) s"
