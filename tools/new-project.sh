#!/usr/bin/env bash
# Makes a new project from starter/, depending on this checkout by path. Called by `./x new`.
#
#   tools/new-project.sh PATH [--name NAME]
#
# PATH must not exist or be an empty folder. NAME (default: PATH's last component) becomes the
# package's name, the kernel crate's (NAME-kernels) and the PTX variable's (NAME_KERNELS_PTX). The
# git dependencies of the starter are commented out and its path alternatives switched on, pointing
# at this checkout; the checkout's lock file comes along, so the project builds with the crate
# versions this checkout was tested with. Depending on the checkout by path, the project's build and
# program also find NVSHMEM and ptxas in the checkout's .deps (`./x deps`), with nothing set: the
# crates look beside the checkout they were built from (nvshmem_locate::checkout).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
usage="usage: ./x new PATH [--name NAME]"
fail() { echo "x new: $1" >&2; exit 2; }

dest="" name=""
while (($#)); do
    case $1 in
    --name) (($# >= 2)) || fail "--name needs a value. $usage"; name=$2; shift 2 ;;
    -*) fail "unknown option \`$1\`. $usage" ;;
    *) [[ -z $dest ]] || fail "one PATH only, got \`$dest\` and \`$1\`. $usage"; dest=$1; shift ;;
    esac
done
[[ -n $dest ]] || fail "$usage"
if [[ -e $dest && ! -d $dest ]]; then
    fail "$dest exists and is not a folder; give a new PATH"
fi
if [[ -d $dest && -n $(ls -A "$dest") ]]; then
    fail "$dest is not empty; give a new or empty folder, so that nothing of yours is overwritten"
fi
name=${name:-$(basename "$dest")}
if [[ ! $name =~ ^[a-z][a-z0-9_-]*$ ]]; then
    fail "\`$name\` is not a valid package name here: use lower-case ASCII letters, digits, \`-\` and \`_\`, starting with a letter (choose one with --name NAME)"
fi
# Cargo's own rules for the rest (keywords, names of built-in crates): ask it.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if ! refusal=$(cd "$repo" && cargo new --quiet --vcs none --name "$name" "$probe/p" 2>&1); then
    fail "cargo refuses \`$name\` as a package name: $(grep -m1 '^error' <<<"$refusal"); choose another with --name NAME"
fi

mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)
cp -R "$repo/starter/." "$dest/"
rm -rf "$dest/target"
# The versions this checkout is tested with: the workspace's lock holds every package the program
# and its kernel crate (a member of the new project's workspace) use, and cargo drops the others.
cp "$repo/Cargo.lock" "$dest/Cargo.lock"
upper=$(tr 'a-z-' 'A-Z_' <<<"$name")
snake=$(tr '-' '_' <<<"$name")
checkout=$(sed 's/[&|\\]/\\&/g' <<<"$repo")
for file in Cargo.toml kernels/Cargo.toml build.rs src/main.rs kernels/src/lib.rs README.md .cargo/config.toml; do
    sed -i -e "s|nvshmem-starter|$name|g" -e "s|nvshmem_starter|$snake|g" -e "s|NVSHMEM_STARTER|$upper|g" \
        -e "s|/path/to/nvshmem-rs/|$checkout/|g" \
        "$dest/$file"
done

cat <<MSG
Made $name in $dest, using the nvshmem-rs checkout $repo by path,
and its NVSHMEM and ptxas
($repo/.deps, which \`$repo/x deps\` fills; NVSHMEM_HOME and PTXAS choose others). Next:

  cd $dest
  cargo build --release
  cargo run --release -- -n 2    # 2 PEs on this machine's GPUs
  cargo test
MSG
