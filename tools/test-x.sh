#!/usr/bin/env bash
# Checks that every command of `./x` that builds installs the pinned toolchain before anything else:
# rustup ≥ 1.28 (or RUSTUP_AUTO_INSTALL=0, as many CI images set) no longer installs it on first
# use, and a fresh clone's `./x ring` would stop at "toolchain … is not installed". And that the
# commands of the GPU machine, `./x bench` and `./x gpu-suite`, only run their scripts.
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

# The GPU machine's commands (no toolchain there) run their script with the caller's arguments and
# install or build nothing; stand-in scripts record how they were called.
declare -A scripts=([twins]=bench/run-bench.sh [ab]=bench/run-ab.sh [latency]=bench/run-latency.sh
    [moe]=bench/run-moe.sh [safe-layer]=bench/run-safe-layer.sh [stencil3d]=bench/run-stencil3d.sh
    [profile-latency]=bench/profile-latency.sh [gpu-suite]=gpu-suite/run.sh)
checkout=$work/gpu-machine/checkout
mkdir -p "$checkout/bench" "$checkout/gpu-suite"
cp x rust-toolchain.toml "$checkout/"
export CALLS=$work/gpu-machine/calls
: >"$CALLS"
for script in "${scripts[@]}"; do
    # shellcheck disable=SC2016 # expanded when the stand-in runs
    printf '#!/usr/bin/env bash\necho "%s $*" >>"$CALLS"\n' "$script" >"$checkout/$script"
    chmod +x "$checkout/$script"
done
for name in "${!scripts[@]}"; do
    command=(bench "$name")
    [[ $name != gpu-suite ]] || command=(gpu-suite)
    (cd "$work" && PATH="$work/bin:$PATH" "$checkout/x" "${command[@]}" OUT 'two words') ||
        fail "\`./x ${command[*]}\` failed"
    [[ $(tail -n 1 "$CALLS") == "${scripts[$name]} OUT two words" ]] ||
        fail "\`./x ${command[*]} OUT 'two words'\` did not run ${scripts[$name]} with those arguments. Calls:
$(cat "$CALLS")"
done
if grep -qv '^\(bench\|gpu-suite\)/' "$CALLS"; then
    fail "a command of the GPU machine installed or built something. Calls:
$(cat "$CALLS")"
fi
status=0
(cd "$work" && "$checkout/x" bench no-such-runner) >/dev/null 2>&1 || status=$?
[[ $status == 2 ]] || fail "\`./x bench no-such-runner\` exited $status, not 2 (usage)"
echo "test-x: every building command of ./x installs the pinned toolchain first; bench and gpu-suite only run their scripts"
