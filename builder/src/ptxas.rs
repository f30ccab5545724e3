//! Assembling the PTX with `ptxas` as a check, where `ptxas` is available.

use crate::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `ptxas` is looked for, in order: `$PTXAS`, `$PATH`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`,
/// `/usr/local/cuda/bin`, and the project-local `nvidia-cuda-nvcc` wheel
/// (`.deps/python/nvidia/cu13/bin`) above `start`.
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
            .map(|dir| dir.join(".deps/python/nvidia/cu13/bin/ptxas")),
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
    let output = command
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .map_err(|error| BuildError::Spawn {
            program: ptxas.display().to_string(),
            error,
        })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(BuildError::PtxasRejected {
            ptx: ptx.to_path_buf(),
            arch: arch.to_string(),
            output: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// Whether `ptxas --help` lists `--Ofast-compile`.
fn has_fast_compile(ptxas: &Path) -> bool {
    Command::new(ptxas)
        .arg("--help")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains("--Ofast-compile"))
}
