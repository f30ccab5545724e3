//! Assembling the PTX with `ptxas` as a check, where `ptxas` is available.

use crate::BuildError;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the project-local `nvidia-cuda-nvcc` wheel keeps `ptxas`, relative to a project's root.
const PROJECT_LOCAL_PTXAS: &str = ".deps/python/nvidia/cu13/bin/ptxas";

/// Where `ptxas` is looked for, in order: the places the user names (`$PTXAS`, the absolute
/// folders of `$PATH`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`), then the places searched:
/// `/usr/local/cuda/bin`, the project-local `nvidia-cuda-nvcc` wheel
/// (`.deps/python/nvidia/cu13/bin`) at the root of the project of `start`
/// ([`nvshmem_locate::project_root`]), and the same in the nvshmem-rs checkout the builder was built
/// from (where NVSHMEM is found too; see [`nvshmem_locate::checkout`]).
///
/// The current folder is never looked in (relative `$PATH` entries are skipped), nor any folder
/// above the project; a searched `ptxas` that another user could have put there is skipped
/// ([`nvshmem_locate::trusted`]). Without a `ptxas`, the error lists those skipped, with why.
pub fn find(start: &Path) -> Result<PathBuf, Vec<String>> {
    find_among(named(), searched(start))
}

/// The `ptxas` candidates the user names, in order.
fn named() -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(explicit) = std::env::var_os("PTXAS") {
        candidates.push(explicit.into());
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(
            std::env::split_paths(&path)
                .filter(|dir| dir.is_absolute())
                .map(|dir| dir.join("ptxas")),
        );
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            candidates.push(Path::new(&root).join("bin/ptxas"));
        }
    }
    candidates
}

/// The `ptxas` candidates searched for the project of `start`, in order.
fn searched(start: &Path) -> Vec<PathBuf> {
    let project = nvshmem_locate::project_root(start);
    let mut candidates = vec![PathBuf::from("/usr/local/cuda/bin/ptxas")];
    candidates.extend(
        project
            .into_iter()
            .chain(nvshmem_locate::checkout())
            .map(|dir| dir.join(PROJECT_LOCAL_PTXAS)),
    );
    candidates
}

/// The first of `named` that is a file, else the first of `searched` that is a trusted one; else
/// the searched files that were skipped, each with why.
fn find_among(named: Vec<PathBuf>, searched: Vec<PathBuf>) -> Result<PathBuf, Vec<String>> {
    if let Some(found) = named.into_iter().find(|path| path.is_file()) {
        return Ok(found);
    }
    let mut skipped = Vec::new();
    for candidate in searched.into_iter().filter(|path| path.is_file()) {
        match nvshmem_locate::trusted(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(untrusted) => skipped.push(format!("{}: {untrusted}", candidate.display())),
        }
    }
    Err(skipped)
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

    /// A stand-in `ptxas` in a new `bin` folder under `root`.
    fn stand_in_ptxas(root: &Path) -> PathBuf {
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let ptxas = bin.join("ptxas");
        std::fs::write(&ptxas, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).unwrap();
        ptxas
    }

    #[test]
    fn a_ptxas_above_the_project_is_never_found() {
        let scratch = tempfile::tempdir().unwrap();
        // Planted by another user in a parent folder, as in `/tmp/.deps`.
        let planted = scratch.path().join(PROJECT_LOCAL_PTXAS);
        stand_in_ptxas(&scratch.path().join(".deps/python/nvidia/cu13"));
        let project = scratch.path().join("project");
        let kernels = project.join("kernels");
        std::fs::create_dir_all(&kernels).unwrap();
        std::fs::write(project.join(nvshmem_locate::PROJECT_MARKER), b"").unwrap();
        let candidates = searched(&kernels);
        assert!(!candidates.contains(&planted), "{candidates:?}");
        let own = project.canonicalize().unwrap().join(PROJECT_LOCAL_PTXAS);
        assert!(candidates.contains(&own), "{candidates:?}");
        assert_ne!(find_among(Vec::new(), candidates), Ok(planted));
    }

    #[test]
    fn a_ptxas_others_can_write_is_skipped_with_the_reason_and_a_named_one_is_used() {
        let scratch = tempfile::tempdir().unwrap();
        let shared = scratch.path().join("shared");
        let ptxas = stand_in_ptxas(&shared);
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let skipped = find_among(Vec::new(), vec![ptxas.clone()]).unwrap_err();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        let reason = format!("{} can be written by other users", shared.display());
        assert!(skipped[0].contains(&reason), "{skipped:?}");
        // A ptxas the user names (PTXAS, PATH, CUDA_HOME) is their word.
        assert_eq!(find_among(vec![ptxas.clone()], Vec::new()), Ok(ptxas));
    }

    #[test]
    fn the_same_ptx_is_assembled_once_per_architecture() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
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
        check_once(&ptxas, &ptx, "A", "sm_90", dir).unwrap();
        let first = count() - baseline;
        check_once(&ptxas, &ptx, "A", "sm_90", dir).unwrap();
        assert_eq!(
            count() - baseline,
            first,
            "the same PTX was assembled again"
        );
        check_once(&ptxas, &ptx, "B", "sm_90", dir).unwrap();
        check_once(&ptxas, &ptx, "B", "sm_80", dir).unwrap();
        assert_eq!(
            count() - baseline,
            3 * first,
            "other text or architecture was skipped"
        );
    }
}
