//! What `PtxBuilder::build` prints, as cargo reads a project's build script: a kernel crate that
//! does not compile must reach the user as rustc's own messages, with paths that open from the
//! project's root, and nothing else; run as the kernels' linker, the script must print nothing.
//!
//! Each test runs its own executable again as that build script (the variable below tells it to)
//! and reads what it printed, as cargo would. The nested build needs what every kernel build
//! needs: the pinned toolchain's `rust-src` and NVSHMEM (this checkout's `.deps`, from `./x deps`).

use std::path::Path;
use std::process::Command;

/// Set in the runs of these tests that play the build script; its value is the calling crate's folder.
const AS_BUILD_SCRIPT: &str = "NVSHMEM_BUILDER_TEST_BUILD_SCRIPT";

/// A kernel crate with one type error, in a project laid out as a workspace with the program
/// (`app`) in a folder of its own: rustc names the file from the kernel crate's folder, the user
/// from the project's root.
fn write_project(root: &Path) {
    let files = [
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"app\"]\nresolver = \"3\"\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        ),
        ("app/src/main.rs", "fn main() {}\n"),
        (
            "app/kernels/Cargo.toml",
            "[package]\nname = \"broken-kernels\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [lib]\ncrate-type = [\"cdylib\"]\n\n[workspace]\n",
        ),
        (
            "app/kernels/src/lib.rs",
            "#![no_std]\n\n#[panic_handler]\nfn panic(_: &core::panic::PanicInfo) -> ! {\n    \
             loop {}\n}\n\npub fn blocks() -> u32 {\n    \"three\"\n}\n",
        ),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `text` without terminal colour codes (`ESC [ … m`).
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|&c| c == 'm');
        } else {
            out.push(c);
        }
    }
    out
}

/// The build script's part, as a project's build.rs writes it, when [`AS_BUILD_SCRIPT`] is set;
/// false otherwise.
fn played_build_script() -> bool {
    let Some(app) = std::env::var_os(AS_BUILD_SCRIPT) else {
        return false;
    };
    let kernels = Path::new(&app).join("kernels");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile-errors");
    nvshmem_builder::PtxBuilder::new(kernels)
        .checks(false)
        .sass(&[])
        .out_dir(out_dir)
        .build()
        .unwrap_or_else(|error| panic!("building the kernels: {error}"));
    true
}

#[test]
fn a_kernel_compile_error_reaches_cargo_as_rustc_renders_it() {
    if played_build_script() {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    write_project(project.path());
    let app = project.path().join("app");
    let test = "a_kernel_compile_error_reaches_cargo_as_rustc_renders_it";
    let (stdout, stderr, status) = run_as_build_script(test, &app, &[]);
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    // What cargo reads: its directives. Errors make it fail the build and print them alone.
    let errors: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("cargo::error="))
        .collect();
    assert!(
        errors.contains(&"error[E0308]: mismatched types"),
        "{context}"
    );
    // Line 9 of lib.rs, named from the project's root as cargo names the program's files.
    assert!(
        errors
            .iter()
            .any(|line| line.trim_start() == "--> app/kernels/src/lib.rs:9:5"),
        "{context}"
    );
    assert!(
        errors
            .last()
            .is_some_and(|line| line.contains("the kernel crate `broken-kernels` did not build")),
        "{context}"
    );
    // Neither the nested command line nor a panic with its backtrace: the script ended by itself.
    assert!(!stdout.contains("--manifest-path"), "{context}");
    assert!(!stderr.contains("panicked"), "{context}");
    assert!(status.success(), "{context}");

    // Asked for, the command line comes too.
    let (stdout, _, _) = run_as_build_script(test, &app, &[("NVSHMEMRS_BUILD_VERBOSE", "1")]);
    let summary = stdout
        .lines()
        .rfind(|line| line.starts_with("cargo::error="))
        .unwrap_or_default()
        .to_string();
    assert!(
        summary.contains("the nested build was:") && summary.contains("--manifest-path"),
        "{stdout}"
    );
}

#[test]
fn the_link_step_prints_nothing_on_stdout() {
    if played_build_script() {
        return;
    }
    // rustc starts the build script as the kernels' linker with this variable set (and here, with
    // arguments the link step refuses); rustc reports what a linker prints as a warning.
    let project = tempfile::tempdir().unwrap();
    write_project(project.path());
    let (stdout, stderr, status) = run_as_build_script(
        "the_link_step_prints_nothing_on_stdout",
        &project.path().join("app"),
        &[("NVSHMEM_BUILDER_LINKER", "1")],
    );
    assert!(!stdout.contains("cargo::"), "stdout:\n{stdout}");
    assert!(
        !status.success() && stderr.contains("nvshmem-builder link step:"),
        "{stderr}"
    );
}

/// Runs `test` of this executable again as the build script of the crate in `app`, with the
/// variables `env` set: its output without colour codes, and its exit status.
fn run_as_build_script(
    test: &str,
    app: &Path,
    env: &[(&str, &str)],
) -> (String, String, std::process::ExitStatus) {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture"])
        .env(AS_BUILD_SCRIPT, app)
        .env("CARGO_MANIFEST_DIR", app)
        .env_remove("NVSHMEMRS_BUILD_VERBOSE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        plain(&String::from_utf8_lossy(&output.stdout)),
        plain(&String::from_utf8_lossy(&output.stderr)),
        output.status,
    )
}
