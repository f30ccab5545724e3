#!/usr/bin/env bash
# The GPU tests each GPU test source declares, and a check that its binary holds them.
#
#   tools/gpu-test-lists.sh OUT_DIR [CARGO_TEST_FLAGS...]
#
# For each GPU test source (`tests/gpu*.rs` or `tests/gpu*/main.rs` of any package), writes the
# names of its #[ignore]d tests (the fn after each #[ignore] attribute, in it and in the modules it
# declares), sorted, to OUT_DIR/NAME.tests, and fails, showing the difference, unless the test
# binary that `cargo test CARGO_TEST_FLAGS --no-run` builds for it lists exactly those with
# `--list --ignored`. Pass the flags of the cargo test run before it, so that its binaries are
# reused rather than built again with another selection of targets. `./x gpu-bundle` writes the
# lists into dist/, where the GPU suite checks the carried binaries against them; `./x test` runs
# the check in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { echo "usage: tools/gpu-test-lists.sh OUT_DIR [CARGO_FLAGS...]" >&2; exit 2; }
out=$1
shift
mkdir -p "$out"

# declared SOURCE [PREFIX [DIR]]: the #[ignore]d tests of a test source, one a line, with those of
# each module it declares under NAME:: (as libtest names them): `mod NAME;` from DIR/NAME.rs or
# DIR/NAME/mod.rs (DIR: where rustc looks for SOURCE's modules, its folder unless given), whose own
# lie in DIR/NAME/.
declared() {
    local source=$1 prefix=${2:-} dir=${3:-$(dirname "$1")} module_path module
    awk -v prefix="$prefix" '/^[[:space:]]*#\[ignore/ { ignored = 1; next }
        ignored && /^[[:space:]]*(pub[[:space:]]+)?(async[[:space:]]+)?fn[[:space:]]/ {
            sub(/^[[:space:]]*(pub[[:space:]]+)?(async[[:space:]]+)?fn[[:space:]]+/, "")
            sub(/[^A-Za-z0-9_].*/, "")
            print prefix $0
            ignored = 0
        }' "$source"
    while read -r module; do
        module_path=$dir/$module.rs
        [[ -f $module_path ]] || module_path=$dir/$module/mod.rs
        declared "$module_path" "$prefix$module::" "$dir/$module"
    done < <(awk '/^(pub(\([a-z]+\))? )?mod [A-Za-z0-9_]+;/ { name = $0
            sub(/^(pub(\([a-z]+\))? )?mod /, "", name); sub(/;.*/, "", name); print name }' "$source")
}

# The test binaries cargo builds with these flags, as "target-name path" lines.
binaries=$(cargo test "$@" --no-run --message-format=json | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "test" in m["target"]["kind"]:
        print(m["target"]["name"], m["executable"])')

shopt -s nullglob
status=0
for source in */tests/gpu*.rs */*/tests/gpu*.rs */tests/gpu*/main.rs */*/tests/gpu*/main.rs; do
    # tests/NAME.rs or tests/NAME/main.rs: cargo's test target NAME.
    name=$(basename "${source%/main.rs}" .rs)
    declared "$source" | LC_ALL=C sort >"$out/$name.tests"
    binary=$(awk -v name="$name" '$1 == name { print $2; exit }' <<<"$binaries")
    if [[ -z $binary ]]; then
        echo "gpu-test-lists: cargo test $* --no-run built no test binary $name for $source" >&2
        status=1
        continue
    fi
    listed=$("$binary" --list --ignored --format terse | sed -n 's/: test$//p' | LC_ALL=C sort)
    if ! diff -u --label "$source (declared)" --label "$name --list --ignored" "$out/$name.tests" \
        <(printf '%s' "${listed:+$listed$'\n'}"); then
        echo "gpu-test-lists: the $name binary does not list the #[ignore]d tests of $source" >&2
        status=1
    fi
done
exit $status
