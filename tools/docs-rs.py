#!/usr/bin/env python3
"""Documents every publishable crate from its package, as docs.rs will once it is published.

    tools/docs-rs.py PACKAGES    after `cargo package --workspace`, whose .crate files are in
                                 PACKAGES (./x test runs both)

docs.rs builds a crate's documentation from the `.crate` file alone, on a machine with neither
NVSHMEM, nor ptxas, nor a GPU, with DOCS_RS=1 and `--cfg docsrs`, for the targets, features and
cargo arguments of the crate's `[package.metadata.docs.rs]`. This does the same: it unpacks each
`PACKAGES/NAME-VERSION.crate` into a folder outside the repository (so that no `.deps` of a
checkout is above it), points each crate's dependencies on the others at their unpacked packages
(`[patch.crates-io]`, as crates.io will serve them), and runs `cargo doc --no-deps --lib` without
NVSHMEM_HOME, PTXAS, CUDA_HOME and the checkout's folders on PATH. Rustdoc warnings are errors.
"""

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# docs.rs's default target, built first.
HOST_TARGET = "x86_64-unknown-linux-gnu"
# What would let a build find NVSHMEM or ptxas outside its package.
UNSET = ["NVSHMEM_HOME", "PTXAS", "CUDA_HOME", "CUDA_PATH", "NVHPC_ROOT"]


def fail(message):
    print(f"docs-rs: {message}", file=sys.stderr)
    sys.exit(1)


def publishable_packages():
    """The workspace members that may be published (no `publish = false`), with their metadata."""
    output = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--locked"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout
    return [p for p in json.loads(output)["packages"] if p["publish"] != []]


def workspace_dependencies(package, by_name, root=True):
    """The names of the workspace crates `package` needs, transitively: all kinds for the crate
    being documented (cargo resolves its dev-dependencies too), normal and build ones below it."""
    needed = set()
    for dependency in package["dependencies"]:
        name = dependency["name"]
        if name in by_name and (root or dependency["kind"] != "dev") and name not in needed:
            needed.add(name)
            needed |= workspace_dependencies(by_name[name], by_name, root=False)
    return needed


def without_checkout(search_path):
    """A PATH-like value without this checkout's folders (./x adds its ptxas and MPI there)."""
    return os.pathsep.join(
        entry for entry in search_path.split(os.pathsep)
        # Not resolved: `.deps` may be a link to a folder elsewhere.
        if entry and not Path(os.path.abspath(entry)).is_relative_to(REPO)
    )


def docs_rs_commands(package, host):
    """One `cargo doc` argument list per target that docs.rs builds for `package`; `--target` only
    for targets other than `host`, so that the dependencies checked for the workspace's own
    documentation (same target folder) are reused."""
    # `[package.metadata.docs.rs]` is the table `rs` in the table `docs`.
    settings = ((package.get("metadata") or {}).get("docs") or {}).get("rs") or {}
    targets = settings.get("targets") or [settings.get("default-target", HOST_TARGET)]
    features = []
    if settings.get("all-features"):
        features.append("--all-features")
    if settings.get("no-default-features"):
        features.append("--no-default-features")
    if settings.get("features"):
        features += ["--features", ",".join(settings["features"])]
    return [
        ["cargo", "doc", "--no-deps", "--lib", *([] if target == host else ["--target", target]),
         *features, *settings.get("cargo-args", [])]
        for target in targets
    ]


def main():
    if len(sys.argv) != 2:
        fail("usage: tools/docs-rs.py PACKAGES (the folder of the .crate files that `cargo package` wrote)")
    crates = Path(sys.argv[1])
    channel = tomllib.loads((REPO / "rust-toolchain.toml").read_text())["toolchain"]["channel"]
    packages = publishable_packages()
    by_name = {p["name"]: p for p in packages}
    scratch = Path(tempfile.mkdtemp(prefix="nvshmem-rs-docs-rs-"))
    unpacked = {}
    for package in packages:
        crate = crates / f"{package['name']}-{package['version']}.crate"
        if not crate.is_file():
            fail(f"{crate} is missing: run `cargo package --workspace` first")
        with tarfile.open(crate) as archive:
            archive.extractall(scratch, filter="data")
        unpacked[package["name"]] = scratch / f"{package['name']}-{package['version']}"

    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env["PATH"] = without_checkout(env.get("PATH", ""))
    env["LD_LIBRARY_PATH"] = without_checkout(env.get("LD_LIBRARY_PATH", ""))
    env.update({
        "DOCS_RS": "1",
        "RUSTDOCFLAGS": "--cfg docsrs -D warnings",
        # Outside the checkout, its rust-toolchain.toml does not apply: name the toolchain.
        "RUSTUP_TOOLCHAIN": channel,
        # The workspace's target folder: its dependencies are checked already.
        "CARGO_TARGET_DIR": str(REPO / "target"),
    })
    host = subprocess.run(["rustc", "-vV"], env=env, check=True, capture_output=True,
                          text=True).stdout.split("host: ")[1].split()[0]
    started = time.monotonic()
    for package in packages:
        if not any(set(t["kind"]) & {"lib", "proc-macro"} for t in package["targets"]):
            continue
        patches = []
        for name in sorted(workspace_dependencies(package, by_name)):
            patches += ["--config", f'patch.crates-io.{name}.path="{unpacked[name]}"']
        # (With `-Zbuild-std`, cargo resolves the standard library against the patches too, and
        # warns that they are not used there.)
        for command in docs_rs_commands(package, host):
            print(f"docs-rs: {package['name']}: {' '.join(command)}", flush=True)
            result = subprocess.run(command + patches, cwd=unpacked[package["name"]], env=env)
            if result.returncode != 0:
                fail(f"the documentation of {package['name']} does not build from its package "
                     f"as docs.rs builds it ({' '.join(command)} in {unpacked[package['name']]})")
    print(f"docs-rs: {len(packages)} crates documented from their packages in "
          f"{time.monotonic() - started:.0f} s")
    # Only on success: a failure leaves the unpacked packages to look at.
    subprocess.run(["rm", "-rf", str(scratch)], check=True)


if __name__ == "__main__":
    main()
