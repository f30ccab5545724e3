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
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The variable that points CUDA clients (and the daemon) at MPS's pipe folder.
pub const PIPE_DIRECTORY: &str = "CUDA_MPS_PIPE_DIRECTORY";
/// MPS's pipe folder when [`PIPE_DIRECTORY`] is not set.
pub const DEFAULT_PIPE_DIRECTORY: &str = "/tmp/nvidia-mps";
/// The variable that points the control daemon and its servers at their log folder.
pub const LOG_DIRECTORY: &str = "CUDA_MPS_LOG_DIRECTORY";
/// The variable that caps the share of a GPU's threads one MPS client may use, in percent;
/// NVSHMEM's full several-PEs-per-GPU mode needs at most 100 / PEs per GPU in every PE.
pub const ACTIVE_THREAD_PERCENTAGE: &str = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
/// The control daemon's executable's file name (`-d` starts it; `quit` on its stdin stops it).
pub const CONTROL_DAEMON: &str = "nvidia-cuda-mps-control";

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
///
/// Only a daemon of this user's or root's counts: the control pipe must be a pipe or socket
/// owned by one of them (anybody may create a file named `control` in `/tmp/nvidia-mps`), and the
/// process must run the `nvidia-cuda-mps-control` executable as one of them (its 15-character
/// process name could be anybody's).
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
    if has_control_pipe(&folder) {
        return Some(Mps::Pipe(folder));
    }
    std::fs::read_dir(proc)
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| runs_control_daemon(&proc.join(pid.to_string())))
        .map(Mps::ControlDaemon)
}

/// Whether the pipe folder `folder` holds a control daemon's `control` pipe: a named pipe or
/// socket of this user or root.
pub fn has_control_pipe(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder.join("control")).is_ok_and(|metadata| {
        let kind = metadata.file_type();
        (kind.is_fifo() || kind.is_socket()) && ours_or_roots(metadata.uid())
    })
}

/// Whether the process whose `/proc` folder is `process` runs the control daemon's executable as
/// this user or root. Another user's process cannot be read here unless this is root, which is
/// as well: its daemon serves only its own clients.
fn runs_control_daemon(process: &Path) -> bool {
    let owner = std::fs::symlink_metadata(process).map(|metadata| metadata.uid());
    owner.is_ok_and(ours_or_roots)
        && std::fs::read_link(process.join("exe"))
            .is_ok_and(|exe| exe.file_name() == Some(OsStr::new(CONTROL_DAEMON)))
}

/// Whether `uid` is this process's effective user or root.
fn ours_or_roots(uid: u32) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    uid == 0 || uid == unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The user another user's files belong to in these tests: `nobody`.
    const OTHER_USER: u32 = 65534;

    /// Whether this test may hand files to another user (only root may).
    fn can_chown() -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    #[test]
    fn the_control_pipe_or_a_running_daemon_means_mps() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path();
        let (pipes, default, proc) = (root.join("pipes"), root.join("default"), root.join("proc"));
        for folder in [&pipes, &default, &proc.join("41"), &proc.join("42")] {
            fs::create_dir_all(folder).unwrap();
        }
        let exe = |pid: &str, program: &str| {
            std::os::unix::fs::symlink(program, proc.join(pid).join("exe")).unwrap();
        };
        exe("41", "/usr/bin/bash");
        // The kernel cuts process names to 15 characters: only the executable tells.
        fs::write(proc.join("42/comm"), "nvidia-cuda-mps\n").unwrap();
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), None);
        exe("42", "/usr/bin/nvidia-cuda-mps-control");
        let daemon = Some(Mps::ControlDaemon(42));
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), daemon);

        let _control = std::os::unix::net::UnixListener::bind(pipes.join("control")).unwrap();
        let found = detect_in(Some(pipes.as_os_str()), &default, &proc).unwrap();
        assert_eq!(found, Mps::Pipe(pipes.clone()));
        assert!(found.to_string().contains("pipes"), "{found}");

        // CUDA looks in the default folder only when the variable is unset (or empty).
        let _default_control =
            std::os::unix::net::UnixListener::bind(default.join("control")).unwrap();
        fs::remove_file(pipes.join("control")).unwrap();
        assert_eq!(detect_in(Some(pipes.as_os_str()), &default, &proc), daemon);
        for unset in [None, Some(OsStr::new(""))] {
            let found = detect_in(unset, &default, &proc);
            assert_eq!(found, Some(Mps::Pipe(default.clone())));
        }
    }

    #[test]
    fn a_control_file_or_daemon_of_another_user_is_not_mps() {
        let scratch = tempfile::tempdir().unwrap();
        let (pipes, proc) = (scratch.path().join("pipes"), scratch.path().join("proc"));
        fs::create_dir_all(proc.join("43")).unwrap();
        fs::create_dir_all(&pipes).unwrap();
        // A plain file anybody could make in `/tmp/nvidia-mps`.
        fs::write(pipes.join("control"), "").unwrap();
        let detect = || detect_in(Some(pipes.as_os_str()), &pipes, &proc);
        assert_eq!(detect(), None);
        if !can_chown() {
            eprintln!("a_control_file_or_daemon_of_another_user_is_not_mps: chown needs root");
            return;
        }
        fs::remove_file(pipes.join("control")).unwrap();
        let _control = std::os::unix::net::UnixListener::bind(pipes.join("control")).unwrap();
        std::os::unix::fs::lchown(pipes.join("control"), Some(OTHER_USER), None).unwrap();
        std::os::unix::fs::symlink("/usr/bin/nvidia-cuda-mps-control", proc.join("43/exe"))
            .unwrap();
        std::os::unix::fs::lchown(proc.join("43"), Some(OTHER_USER), None).unwrap();
        assert_eq!(detect(), None);
        std::os::unix::fs::lchown(proc.join("43"), Some(0), None).unwrap();
        assert_eq!(detect(), Some(Mps::ControlDaemon(43)));
    }
}
