//! The nested `cargo build` of a kernel crate for `nvptx64-nvidia-cuda`.

use crate::BuildError;
use crate::diagnostics::{self, SourcePaths};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The target triple kernels are compiled for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Variables of the outer build that must not leak into the nested one: they describe the outer
/// package, its target and its flags (rust-gpu's spirv-builder and rust-cuda's cuda_builder clean the
/// same set).
fn leaks_from_outer_build(name: &str) -> bool {
    const EXACT: [&str; 15] = [
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
        "MAKEFLAGS",
    ];
    (name.starts_with("CARGO_") && name != "CARGO_HOME")
        || name.starts_with("__CARGO")
        || name.starts_with("DEP_")
        || name == "CARGO"
        || EXACT.contains(&name)
}

/// What the nested build produced.
pub struct NestedBuild {
    /// The linked PTX file.
    pub ptx: PathBuf,
    /// Source files the PTX depends on (from cargo's dep-info file).
    pub sources: Vec<PathBuf>,
}

/// The feature of the kernel crate's `nvshmem-gpu` dependency that compiles the device checks in.
pub const CHECKS_FEATURE: &str = "nvshmem-gpu/checks";

/// The feature of the kernel crate's `nvshmem-gpu` dependency that turns its load/store path off.
pub const NVSHMEM_ONLY_FEATURE: &str = "nvshmem-gpu/nvshmem-only";

/// The feature of the kernel crate's `nvshmem-gpu` dependency that declares and wraps the device
/// functions of NVSHMEM 3.7 and later.
pub const NVSHMEM_3_7_FEATURE: &str = "nvshmem-gpu/nvshmem-3-7";

/// The first release that has the functions of [`NVSHMEM_3_7_FEATURE`].
pub const NVSHMEM_3_7: nvshmem_locate::Version = nvshmem_locate::Version {
    major: 3,
    minor: 7,
    patch: 0,
};

/// Set (to anything but `0`), a failed kernel build's error also gives the nested cargo's command
/// line and environment, which are long and seldom what is wrong.
pub const VERBOSE_VAR: &str = "NVSHMEMRS_BUILD_VERBOSE";

/// The kernel crate to build.
pub struct KernelCrate<'a> {
    /// Its `Cargo.toml`.
    pub manifest: &'a Path,
    /// Its package name.
    pub package: &'a str,
}

/// Runs the nested build of `kernels` with `features` (of the kernel crate, e.g.
/// [`CHECKS_FEATURE`]). `linker_env` carries the link step's settings. Compiler messages come as
/// rustc renders them for a terminal, their locations relative to the root of the calling crate's
/// workspace (`caller_dir`, its `CARGO_MANIFEST_DIR`; else the current folder): warnings, line by
/// line, to `forward_warning`; errors in [`BuildError::CargoFailed`].
pub fn build(
    kernels: KernelCrate<'_>,
    caller_dir: Option<&Path>,
    target_dir: &Path,
    arch: &str,
    features: &[&str],
    linker_env: &[(&str, String)],
    mut forward_warning: impl FnMut(&str),
) -> Result<NestedBuild, BuildError> {
    let KernelCrate { manifest, package } = kernels;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let linker = stable_linker(target_dir)?;
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--release", "--target", TARGET, "-Zbuild-std=core"])
        // A kernel cannot unwind, and one codegen unit lets the link step see every call. Given
        // here rather than in each kernel crate's manifest, so that a runner may depend on its
        // kernel crate (for the launch descriptors) without cargo ignoring a non-root profile.
        .args(["--config", "profile.release.panic=\"abort\""])
        .args(["--config", "profile.release.codegen-units=1"])
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir)
        // rustc's messages as it renders them for a terminal, in the JSON, to rewrite their
        // paths; the outer cargo drops the colours where its output is not a terminal.
        .arg("--message-format=json-diagnostic-rendered-ansi")
        .args(
            (!features.is_empty())
                .then(|| ["--features".to_string(), features.join(",")])
                .into_iter()
                .flatten(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(leaks_from_outer_build) {
            command.env_remove(name);
        }
    }
    command
        .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={arch}"))
        .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_LINKER", &linker)
        .envs(linker_env.iter().map(|(name, value)| (name, value)));
    let command_line = format!("{command:?}");
    let mut child = command.spawn().map_err(|error| BuildError::Spawn {
        program: cargo.to_string_lossy().into_owned(),
        error,
    })?;
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut ptx = None;
    let mut errors = String::new();
    let mut paths = None;
    let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    for line in stdout.lines().map_while(Result::ok) {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match message["reason"].as_str() {
            Some("compiler-message") => {
                let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
                let paths =
                    paths.get_or_insert_with(|| SourcePaths::find(&cargo, manifest, caller_dir));
                match message["message"]["level"].as_str() {
                    Some("warning") => paths
                        .rewrite(rendered)
                        .lines()
                        .for_each(&mut forward_warning),
                    // `failure-note`: where to read more about an error code.
                    Some("error" | "failure-note") => errors.push_str(&paths.rewrite(rendered)),
                    _ => {}
                }
            }
            Some("compiler-artifact") => {
                let is_cdylib = message["target"]["kind"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k == "cdylib"));
                let file = message["filenames"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .find(|name| name.ends_with(".ptx"));
                if let (true, Some(file)) = (is_cdylib, file) {
                    ptx = Some(PathBuf::from(file));
                }
            }
            _ => {}
        }
    }
    let status = child.wait().map_err(|error| BuildError::Spawn {
        program: cargo.to_string_lossy().into_owned(),
        error,
    })?;
    let stderr_text = stderr_reader.join().unwrap_or_default();
    if !status.success() {
        let verbose =
            std::env::var_os(VERBOSE_VAR).is_some_and(|value| !value.is_empty() && value != "0");
        return Err(BuildError::CargoFailed {
            package: package.to_string(),
            output: errors + &diagnostics::cargo_lines(&stderr_text),
            command: verbose.then_some(command_line),
        });
    }
    let ptx = ptx.ok_or_else(|| BuildError::NoPtxProduced {
        package: manifest.parent().unwrap_or(manifest).display().to_string(),
    })?;
    let sources = read_dep_info(&ptx.with_extension("d"))?;
    Ok(NestedBuild { ptx, sources })
}

/// The digest of the builder's version and of the named source files, with the names (a test
/// checks that they are every file of `src/` the link step can depend on).
macro_rules! digest_of_sources {
    ($($file:literal),* $(,)?) => {
        (
            fnv1a(&[env!("CARGO_PKG_VERSION").as_bytes(), $(include_bytes!($file)),*]),
            &[$($file),*],
        )
    };
}

const DIGESTED_SOURCES: (u64, &[&str]) = digest_of_sources!(
    "lib.rs",
    "linker.rs",
    "arch.rs",
    "nested_cargo.rs",
    "ptx_file.rs",
    "ptxas.rs",
    "renamed.rs",
    "sass.rs",
    "transport_pin.rs",
    "error.rs",
    "diagnostics.rs",
);

/// A digest of the builder's sources and version, computed when the builder is compiled: what the
/// link step does changes only with it.
const LINKER_DIGEST: u64 = DIGESTED_SOURCES.0;

/// 64-bit FNV-1a over `parts` in order, usable in constants.
const fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut part = 0;
    while part < parts.len() {
        let bytes = parts[part];
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        part += 1;
    }
    hash
}

/// The path given to cargo as the kernels' linker: a symbolic link, in the kernels' target folder,
/// to this executable (the build script, which acts as the linker), named after [`LINKER_DIGEST`].
/// Cargo relinks a crate whenever its linker's path changes, and every variant of a build script
/// (a package's `cargo check`, `cargo doc` and `cargo test` builds) is an executable of its own:
/// naming the executable itself would relink every kernel crate for each. The name changes with the
/// builder's sources, so a changed link step still relinks.
fn stable_linker(target_dir: &Path) -> Result<PathBuf, BuildError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| BuildError::Io { path, error }
    };
    let executable = std::env::current_exe().map_err(|error| BuildError::Spawn {
        program: "current_exe".into(),
        error,
    })?;
    std::fs::create_dir_all(target_dir).map_err(io(target_dir))?;
    let link = target_dir.join(format!("nvshmem-linker-{LINKER_DIGEST:016x}"));
    // Build scripts of several packages may share the folder: each points the link at its own
    // executable (all of them link alike) by renaming a fresh link over it, which is atomic. The
    // fresh link's name is unique per call, not only per process: one process may build several
    // crates at once on its threads (ptx-matrix does).
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let fresh = link.with_extension(format!("{}-{call}", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(&executable, &fresh).map_err(io(&fresh))?;
    std::fs::rename(&fresh, &link).map_err(io(&link))?;
    Ok(link)
}

/// The prerequisites listed in a Makefile-style dep-info file (`out: a.rs b.rs`, spaces escaped).
fn read_dep_info(path: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(parse_dep_info(&text))
}

pub(crate) fn parse_dep_info(text: &str) -> Vec<PathBuf> {
    let Some(first_rule) = text.lines().find(|line| line.contains(": ")) else {
        return Vec::new();
    };
    let (_, prerequisites) = first_rule.split_once(": ").unwrap_or_default();
    let mut sources = Vec::new();
    let mut current = String::new();
    let mut chars = prerequisites.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            ' ' if !current.is_empty() => sources.push(PathBuf::from(std::mem::take(&mut current))),
            ' ' => {}
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        sources.push(PathBuf::from(current));
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_linker_path_depends_on_the_builders_sources_not_on_the_executable() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("linker");
        let first = stable_linker(&dir).unwrap();
        let again = stable_linker(&dir).unwrap();
        assert_eq!(first, again);
        assert_eq!(
            first.file_name().unwrap().to_str().unwrap(),
            format!("nvshmem-linker-{LINKER_DIGEST:016x}")
        );
        assert_eq!(
            std::fs::read_link(&first).unwrap(),
            std::env::current_exe().unwrap()
        );
        // Only the link is left: the fresh one it came from was renamed over it.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert_ne!(fnv1a(&[b"a"]), fnv1a(&[b"b"]));
        assert_eq!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"abc"]));
    }

    #[test]
    fn threads_of_one_process_point_the_linker_at_once() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("linker");
        let threads = 8;
        let start = std::sync::Barrier::new(threads);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    start.wait();
                    for _ in 0..200 {
                        stable_linker(&dir).unwrap();
                    }
                });
            }
        });
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn the_linker_digest_covers_every_source_of_the_link_step() {
        // The fuzzing entry points only call into the others, and are not compiled for builds.
        let not_linking = ["fuzzing.rs"];
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut missing = Vec::new();
        for entry in std::fs::read_dir(&src).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if !DIGESTED_SOURCES.1.contains(&name.as_str()) && !not_linking.contains(&name.as_str())
            {
                missing.push(name);
            }
        }
        assert!(
            missing.is_empty(),
            "add {missing:?} to DIGESTED_SOURCES, or a change to them would not relink the kernels"
        );
    }

    #[test]
    fn outer_build_variables_are_cleaned() {
        for leaking in [
            "CARGO_PKG_NAME",
            "CARGO_CFG_TARGET_OS",
            "RUSTFLAGS",
            "TARGET",
            "DEP_Z_INCLUDE",
            "CARGO_ENCODED_RUSTFLAGS",
            "RUSTC_WRAPPER",
            "CARGO_TARGET_DIR",
            "CARGO",
        ] {
            assert!(leaks_from_outer_build(leaking), "{leaking}");
        }
        for kept in [
            "CARGO_HOME",
            "RUSTUP_TOOLCHAIN",
            "PATH",
            "HOME",
            "NVSHMEM_HOME",
        ] {
            assert!(!leaks_from_outer_build(kept), "{kept}");
        }
    }

    #[test]
    fn dep_info_prerequisites_are_split_with_escapes() {
        let text = "/t/k.ptx: /src/lib.rs /src/my\\ file.rs /gpu/src/rma.rs\n\n/src/lib.rs:\n";
        assert_eq!(
            parse_dep_info(text),
            [
                PathBuf::from("/src/lib.rs"),
                "/src/my file.rs".into(),
                "/gpu/src/rma.rs".into()
            ]
        );
    }

    proptest::proptest! {
        /// As the `builder_inputs` fuzz target: any dep-info text is split, never a panic.
        #[test]
        fn any_dep_info_is_split(dep_info in "([a-z/]{0,6}(: |\\\\| |\n)?){0,8}") {
            let _ = parse_dep_info(&dep_info);
        }
    }
}
