//! `cargo check` of a scratch crate for the GPU target, for tests that compile device code: rustdoc
//! and trybuild compile for the host, where the GPU-only modules do not exist. A dev-dependency of
//! `nvshmem-gpu` and `nvshmem-halo`, whose device modules are GPU-only.

use std::path::Path;
use std::process::{Command, Output};

/// Writes a crate named `name` with `lib` as its `src/lib.rs` and `dependencies` (the lines of its
/// `[dependencies]` table) under `target_tmpdir`, and runs `cargo check` on it for
/// `nvptx64-nvidia-cuda` (no NVSHMEM needed: nothing is linked), offline, with the workspace's
/// `Cargo.lock`. Returns cargo's output; the crate stays for a look at a failure. Every scratch
/// crate under `target_tmpdir` (the workspace's `CARGO_TARGET_TMPDIR`, whichever package's test
/// calls this) builds into one target folder there, so the standard library for the GPU and the
/// crates they share are checked once; cargo locks the folder while one build runs.
pub fn check_for_gpu(target_tmpdir: &Path, name: &str, lib: &str, dependencies: &str) -> Output {
    // This crate is `tools/device-check` of the workspace.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let crate_dir = target_tmpdir.join(name);
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(crate_dir.join("src/lib.rs"), lib).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\n{dependencies}\n\n[workspace]\n"
        ),
    )
    .unwrap();
    // The versions this workspace was tested with, and no registry access.
    std::fs::copy(workspace.join("Cargo.lock"), crate_dir.join("Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    Command::new(env!("CARGO"))
        .current_dir(&crate_dir)
        .args([
            "check",
            "--offline",
            "--quiet",
            "--target",
            "nvptx64-nvidia-cuda",
        ])
        .arg("-Zbuild-std=core")
        .arg("--target-dir")
        .arg(target_tmpdir.join("device-check-target"))
        // This test's own build settings are not the scratch crate's.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cargo runs")
}
