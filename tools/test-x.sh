#!/usr/bin/env bash
# Checks that every command of `./x` that builds installs the pinned toolchain before anything else:
# rustup ≥ 1.28 (or RUSTUP_AUTO_INSTALL=0, as many CI images set) no longer installs it on first
# use, and a fresh clone's `./x ring` would stop at "toolchain … is not installed".
#
# Runs a copy of `x` in a scratch folder with stand-ins for rustup, cargo, python3 and cc on PATH
# that record their calls; the stand-in cargo fails, so each command stops at its first build.
# Run by `./x test`; needs nothing installed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
fail() { echo "test-x: $1" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/bin"
for tool in rustup cargo python3 cc; do
    cat >"$work/bin/$tool" <<STANDIN
#!/usr/bin/env bash
echo "$tool \$* (in \$PWD)" >>"\$CALLS"
[[ $tool != cargo ]] || { echo "stand-in cargo: stops here" >&2; exit 3; }
# pip's folders, into which x writes its marker files
while ((\$#)); do [[ \$1 != --target && \$1 != --dest ]] || mkdir -p "\$2"; shift; done
STANDIN
    chmod +x "$work/bin/$tool"
done

for command in ring test new ptx-matrix gpu-bundle guide kernels-clippy; do
    checkout=$work/$command/checkout
    mkdir -p "$checkout"
    cp x rust-toolchain.toml "$checkout/"
    export CALLS=$work/$command/calls
    : >"$CALLS"
    args=()
    [[ $command != new ]] || args=("$work/$command/project")
    (cd "$work" && PATH="$work/bin:$PATH" "$checkout/x" "$command" "${args[@]}") >"$work/$command/log" 2>&1 || true
    before_cargo=$(sed '/^cargo /,$d' "$CALLS")
    [[ $before_cargo == *"rustup toolchain install (in $checkout)"* ]] ||
        fail "\`./x $command\` did not install the pinned toolchain (\`rustup toolchain install\` beside rust-toolchain.toml) before its first build. Its calls:
$(cat "$CALLS")"
done
# The main job got as far as building the ring: the check above covered its path.
grep -q '^cargo run --release --locked -p ring' "$work/ring/calls" ||
    fail "\`./x ring\` never reached its build: $(cat "$work/ring/log")"
echo "test-x: every building command of ./x installs the pinned toolchain first"
