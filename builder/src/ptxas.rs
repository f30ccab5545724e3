//! Assembling the PTX with `ptxas` as a check, where `ptxas` is available.

use crate::BuildError;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the project-local `nvidia-cuda-nvcc` wheel keeps `ptxas`, relative to a project's root.
const PROJECT_LOCAL_PTXAS: &str = ".deps/python/nvidia/cu13/bin/ptxas";

/// Where `ptxas` is looked for, in order: `$PTXAS`, `$PATH`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`,
/// `/usr/local/cuda/bin`, the project-local `nvidia-cuda-nvcc` wheel
/// (`.deps/python/nvidia/cu13/bin`) above `start`, and the same in the nvshmem-rs checkout the
/// builder was built from (where NVSHMEM is found too; see `nvshmem_locate::checkout`).
pub fn find(start: &Path) -> Result<PathBuf, Vec<PathBuf>> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(explicit) = std::env::var_os("PTXAS") {
        candidates.push(explicit.into());
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|dir| dir.join("ptxas")));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            candidates.push(Path::new(&root).join("bin/ptxas"));
        }
    }
    candidates.push("/usr/local/cuda/bin/ptxas".into());
    candidates.extend(
        start
            .ancestors()
            .chain(nvshmem_locate::checkout().as_deref())
            .map(|dir| dir.join(PROJECT_LOCAL_PTXAS)),
    );
    match candidates.iter().find(|path| path.is_file()) {
        Some(found) => Ok(found.clone()),
        None => Err(candidates),
    }
}

/// Assembles `ptx` for `arch`, discarding the output; an error carries what `ptxas` printed.
///
/// The machine code is thrown away (the driver compiles the PTX again when the module loads), so a
/// `ptxas` that has `--Ofast-compile` (CUDA 12.8 and later) is asked for its fastest level: it
/// parses and checks the PTX as at any level, several times faster on NVSHMEM 3.8's large device
/// functions.
pub fn check(ptxas: &Path, ptx: &Path, arch: &str) -> Result<(), BuildError> {
    let mut command = Command::new(ptxas);
    if has_fast_compile(ptxas) {
        command.args(["--Ofast-compile", "max"]);
    }
    command
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg("/dev/null");
    run(command, ptxas, |output| BuildError::PtxasRejected {
        ptx: ptx.to_path_buf(),
        arch: arch.to_string(),
        output,
    })
}

/// Runs `command` (the program `program`), turning a failure into `failed(what it printed)`.
pub fn run(
    mut command: Command,
    program: &Path,
    failed: impl FnOnce(String) -> BuildError,
) -> Result<(), BuildError> {
    let output = command.output().map_err(|error| BuildError::Spawn {
        program: program.display().to_string(),
        error,
    })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failed(String::from_utf8_lossy(&output.stderr).into_owned()))
    }
}

/// A digest of what `ptxas` makes of `text` for `key` (the architecture, with the options where
/// they vary): the text, the key and the `ptxas` file (path, size, modification time), so that
/// another `ptxas` is not taken for this one.
pub fn digest(ptxas: &Path, text: &str, key: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (text, key, ptxas).hash(&mut hasher);
    if let Ok(file) = std::fs::metadata(ptxas) {
        (file.len(), file.modified().ok()).hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether `ptxas --help` lists `--Ofast-compile`.
fn has_fast_compile(ptxas: &Path) -> bool {
    Command::new(ptxas)
        .arg("--help")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains("--Ofast-compile"))
}

/// [`check`], unless this `ptxas` already accepted the same PTX text for `arch`: each acceptance
/// leaves a stamp in `stamps` (the kernel folder), named by a hash of the text, the architecture and
/// the `ptxas` file. The build scripts and ptx-matrix write the same PTX into different output
/// folders, and NVSHMEM 3.8's takes ptxas a minute or more per crate.
pub fn check_once(
    ptxas: &Path,
    ptx: &Path,
    text: &str,
    arch: &str,
    stamps: &Path,
) -> Result<(), BuildError> {
    let stamp = stamps.join(format!("ptxas-accepted-{:016x}", digest(ptxas, text, arch)));
    if stamp.is_file() {
        return Ok(());
    }
    check(ptxas, ptx, arch)?;
    // A stamp that cannot be written only means assembling again next time.
    let _ = std::fs::write(&stamp, format!("{} for {arch}\n", ptx.display()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_same_ptx_is_assembled_once_per_architecture() {
        let dir =
            std::env::temp_dir().join(format!("nvshmem-builder-ptxas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A stand-in ptxas that counts its runs (and has no --Ofast-compile).
        let runs = dir.join("runs");
        let ptxas = dir.join("ptxas");
        std::fs::write(
            &ptxas,
            format!("#!/bin/sh\necho run >> {}\n", runs.display()),
        )
        .unwrap();
        std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).unwrap();
        let ptx = dir.join("k.ptx");
        let count = || {
            std::fs::read_to_string(&runs)
                .unwrap_or_default()
                .lines()
                .filter(|line| *line == "run")
                .count()
        };
        let baseline = count(); // `--help` runs count too: compare assembling runs only
        check_once(&ptxas, &ptx, "A", "sm_90", &dir).unwrap();
        let first = count() - baseline;
        check_once(&ptxas, &ptx, "A", "sm_90", &dir).unwrap();
        assert_eq!(
            count() - baseline,
            first,
            "the same PTX was assembled again"
        );
        check_once(&ptxas, &ptx, "B", "sm_90", &dir).unwrap();
        check_once(&ptxas, &ptx, "B", "sm_80", &dir).unwrap();
        assert_eq!(
            count() - baseline,
            3 * first,
            "other text or architecture was skipped"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
