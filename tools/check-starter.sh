#!/usr/bin/env bash
# Builds, tests and runs the starter as a user would, from outside the repository: `./x new` into a
# temporary folder, then `cargo build` (kernels linked with NVSHMEM's device bitcode and assembled
# by ptxas), `cargo test` (the kernel crate's unit tests included), `cargo kernels-clippy` and
# `cargo run` there; then plants a type error in the kernel and checks that the lint and the build
# report it as rustc does. With none of what `./x` sets for its own builds
# (NVSHMEM_HOME, PTXAS, its folders on PATH): the project must find NVSHMEM and ptxas in this
# checkout's .deps by itself. Run by `./x test` after the workspace's tests: with CARGO_TARGET_DIR at
# this checkout's target/ (the one difference from a user's build), the nvshmem-rs crates built for
# those are reused, and so is the starter's own kernel build (core for the GPU) from the last run.
# Also checks what tools/new-project.sh refuses. Needs `./x deps` done.
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
# A search path without this checkout's folders, which `./x` adds.
outside_repo() { tr ':' '\n' <<<"$1" | grep -v -e "^$repo/" -e "^$repo\$" | paste -sd: -; }
as_user() {
    env -u NVSHMEM_HOME -u PTXAS PATH="$(outside_repo "$PATH")" \
        LD_LIBRARY_PATH="$(outside_repo "${LD_LIBRARY_PATH:-}")" CARGO_TARGET_DIR="$repo/target" "$@"
}
(
    cd "$project"
    # The builder only warns when it cannot assemble the PTX; here that is a failure.
    as_user cargo build 2>&1 | tee "$work/build.log"
    if grep -q "was not assembled" "$work/build.log"; then
        fail "the starter's PTX was not assembled: the builder found no ptxas, not even in $repo/.deps"
    fi
    # Machine code ahead of time, as a release build makes it, asked for by name here so that the
    # debug build above is reused: the builder's fat binary must hold it.
    as_user env NVSHMEMRS_SASS=sm_90 cargo build -q
    fatbin=$(ls -t "$repo"/target/debug/build/starter-check-*/out/starter-check-kernels.fatbin | head -1)
    [[ $(head -c 4 "$fatbin" | od -An -tx1 | tr -d ' \n') == 50ed55ba ]] ||
        fail "the starter built with NVSHMEMRS_SASS=sm_90 has no fat binary of machine code ($fatbin)"
    as_user cargo test 2>&1 | tee "$work/test.log"
    # The kernel crate is a member of the project's workspace: its unit tests run too.
    grep -q '^test pattern::tests::.* ok$' "$work/test.log" ||
        fail "cargo test in the project did not run the kernel crate's unit tests (kernels/src/pattern.rs)"
    as_user cargo kernels-clippy -- -D warnings
    as_user cargo fmt --check
    # The program finds NVSHMEM's host library too: on a GPU machine it runs; without a GPU it
    # stops at the driver, after NVSHMEM was found.
    if ! as_user cargo run -q -- -n 1 >"$work/run.log" 2>&1; then
        cat "$work/run.log"
        grep -q "libcuda.so.1" "$work/run.log" ||
            fail "the starter failed other than for want of a GPU (above)"
    fi
    # A type error inside a kernel body, which only the GPU build compiles: the lint and the build
    # must both report it as rustc does, from the project's root, and the build nothing else (no
    # nested command line, no panic).
    sed -i 's/let first = thread::thread_idx_x() as usize;/let first: u32 = thread::thread_idx_x() as usize;/' kernels/src/lib.rs
    grep -q 'let first: u32' kernels/src/lib.rs || fail "the type error was not planted: kernels/src/lib.rs changed"
    for command in kernels-clippy build; do
        if as_user cargo "$command" >"$work/planted.log" 2>&1; then
            fail "cargo $command passed with a type error in a kernel body"
        fi
        grep -q 'error\[E0308\]: mismatched types' "$work/planted.log" && grep -q -- '--> kernels/src/lib.rs:' "$work/planted.log" ||
            fail "cargo $command did not report the kernel's type error as rustc does: $(cat "$work/planted.log")"
    done
    if grep -n -e 'command:' -e '--manifest-path' -e 'panicked' "$work/planted.log"; then
        fail "cargo build reported more than the kernel's errors (above)"
    fi
)
echo "check-starter: the starter built and passed its tests outside the repository in $((SECONDS - started)) s"
