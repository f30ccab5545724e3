//! Whether NVIDIA's Multi-Process Service (MPS) serves this machine's GPUs, so that both the PEs and
//! the launcher can say when its server may be the cause of a failure.
//!
//! A PE that dies while its kernel runs (or a kernel that faults) leaves the MPS server in a failed
//! state: it then refuses every later client, whose CUDA initialisation fails with "unspecified
//! launch failure", until the control daemon is restarted ([`RESTART`]).
//!
//! ```no_run
//! if let Some(mps) = nvshmem_pe_env::mps::detect() {
//!     println!("MPS is in use ({mps})");
//! }
//! ```

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

/// The variable that points CUDA clients (and the daemon) at MPS's pipe folder.
pub const PIPE_DIRECTORY: &str = "CUDA_MPS_PIPE_DIRECTORY";
/// MPS's pipe folder when [`PIPE_DIRECTORY`] is not set.
pub const DEFAULT_PIPE_DIRECTORY: &str = "/tmp/nvidia-mps";
/// The control daemon's process name.
const CONTROL_DAEMON: &str = "nvidia-cuda-mps-control";

/// How to bring a failed MPS server back, for messages.
pub const RESTART: &str = "stop the control daemon with `echo quit | nvidia-cuda-mps-control` and \
                           start it again with `nvidia-cuda-mps-control -d` (with the same \
                           CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY)";

/// How MPS was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mps {
    /// The control pipe exists in this folder (from [`PIPE_DIRECTORY`], else the default).
    Pipe(PathBuf),
    /// No control pipe in sight, but the control daemon runs with this process id.
    ControlDaemon(u32),
}

impl fmt::Display for Mps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mps::Pipe(folder) => write!(f, "control pipe in {}", folder.display()),
            Mps::ControlDaemon(pid) => write!(f, "{CONTROL_DAEMON} runs as process {pid}"),
        }
    }
}

/// MPS as this process sees it: the control pipe in `$CUDA_MPS_PIPE_DIRECTORY` (else
/// `/tmp/nvidia-mps`), else a running `nvidia-cuda-mps-control`. `None` when neither is there.
pub fn detect() -> Option<Mps> {
    detect_in(
        std::env::var_os(PIPE_DIRECTORY).as_deref(),
        Path::new(DEFAULT_PIPE_DIRECTORY),
        Path::new("/proc"),
    )
}

/// [`detect`] with the variable's value, the default pipe folder and the process table given.
fn detect_in(pipe_directory: Option<&OsStr>, default: &Path, proc: &Path) -> Option<Mps> {
    let folder = pipe_directory
        .filter(|value| !value.is_empty())
        .map_or_else(|| default.to_path_buf(), PathBuf::from);
    if folder.join("control").exists() {
        return Some(Mps::Pipe(folder));
    }
    std::fs::read_dir(proc)
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read_to_string(proc.join(pid.to_string()).join("comm"))
                .is_ok_and(|name| name.trim_end() == CONTROL_DAEMON)
        })
        .map(Mps::ControlDaemon)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("mps-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        fs::create_dir_all(&folder).unwrap();
        folder
    }

    #[test]
    fn the_control_pipe_or_a_running_daemon_means_mps() {
        let root = scratch("detect");
        let (pipes, default, proc) = (root.join("pipes"), root.join("default"), root.join("proc"));
        for folder in [&pipes, &default, &proc.join("41"), &proc.join("42")] {
            fs::create_dir_all(folder).unwrap();
        }
        fs::write(proc.join("41/comm"), "bash\n").unwrap();
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), None);

        fs::write(proc.join("42/comm"), "nvidia-cuda-mps-control\n").unwrap();
        let daemon = Some(Mps::ControlDaemon(42));
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), daemon);

        fs::write(pipes.join("control"), "").unwrap();
        let found = detect_in(Some(pipes.as_os_str()), &default, &proc).unwrap();
        assert_eq!(found, Mps::Pipe(pipes.clone()));
        assert!(found.to_string().contains("pipes"), "{found}");

        // CUDA looks in the default folder only when the variable is unset (or empty).
        fs::remove_file(pipes.join("control")).unwrap();
        fs::write(default.join("control"), "").unwrap();
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), daemon);
        for unset in [None, Some(OsStr::new(""))] {
            let found = detect_in(unset, &default, &proc);
            assert_eq!(found, Some(Mps::Pipe(default.clone())));
        }
        fs::remove_dir_all(&root).unwrap();
    }
}
