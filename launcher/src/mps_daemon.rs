//! A private MPS control daemon for one job (`nvshmemrun --mps`): started with pipe and log
//! folders of the job's own, named in every PE's environment, and stopped when the job ends.
//!
//! The daemon is told apart from any other by its pipe folder, which only this job knows: it is
//! stopped by sending `quit` through that folder, so a daemon the launcher did not start is never
//! reached. [`PrivateMps`] stops its daemon when dropped, so that every way out of a job (a PE that
//! could not start, a panic) stops it too; [`PrivateMps::stop`] does it and reports a failure.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nvshmem_pe_env::mps::{
    ACTIVE_THREAD_PERCENTAGE, CONTROL_DAEMON, LOG_DIRECTORY, PIPE_DIRECTORY, has_control_pipe,
};

/// How long the daemon gets to start (`-d` returns once it has forked) and open its control pipe.
const READY: Duration = Duration::from_secs(10);
/// How long `quit` gets to be delivered.
const QUIT: Duration = Duration::from_secs(10);
/// How often the daemon's start and stop are polled.
const POLL: Duration = Duration::from_millis(10);
/// How many of the control daemon's last log lines an error quotes.
const LOG_LINES: usize = 5;

/// The job's own MPS control daemon.
#[derive(Debug)]
pub(crate) struct PrivateMps {
    pipe: PathBuf,
    log: PathBuf,
    stopped: bool,
}

impl PrivateMps {
    /// Starts a control daemon whose pipe and log folders are new private (0700) folders inside
    /// `job_folder`, and waits until it listens on its control pipe.
    pub(crate) fn start(job_folder: &Path) -> Result<PrivateMps, MpsError> {
        let pipe = job_folder.join("mps-pipe");
        let log = job_folder.join("mps-log");
        for folder in [&pipe, &log] {
            fs::DirBuilder::new()
                .mode(0o700)
                .create(folder)
                .map_err(|source| MpsError::Folder {
                    folder: folder.clone(),
                    source,
                })?;
        }
        // From here on a drop stops whatever did start.
        let daemon = PrivateMps {
            pipe,
            log,
            stopped: false,
        };
        let start = daemon
            .control()
            .arg("-d")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(MpsError::Spawn)?;
        let deadline = Instant::now() + READY;
        match wait_until(start, deadline).map_err(MpsError::Spawn)? {
            Some(status) if status.success() => {}
            status => {
                return Err(MpsError::StartFailed {
                    status,
                    log: daemon.log_tail(),
                });
            }
        }
        while !has_control_pipe(&daemon.pipe) {
            if Instant::now() >= deadline {
                return Err(MpsError::NotReady {
                    pipe: daemon.pipe.clone(),
                    log: daemon.log_tail(),
                });
            }
            std::thread::sleep(POLL);
        }
        Ok(daemon)
    }

    /// The variables every PE gets: the daemon's folders, and an equal share of the GPU's threads
    /// for each of the `sharing` PEs on one GPU (NVSHMEM's full several-PEs-per-GPU mode needs at
    /// most 100 / `sharing` percent).
    pub(crate) fn env_vars(&self, sharing: usize) -> [(&'static str, OsString); 3] {
        let percent = (100 / sharing.max(1)).max(1);
        [
            (PIPE_DIRECTORY, self.pipe.clone().into_os_string()),
            (LOG_DIRECTORY, self.log.clone().into_os_string()),
            (ACTIVE_THREAD_PERCENTAGE, percent.to_string().into()),
        ]
    }

    /// Stops the daemon (`echo quit | nvidia-cuda-mps-control` with its folders).
    pub(crate) fn stop(mut self) -> Result<(), MpsError> {
        self.quit()
    }

    /// Sends `quit` once; later calls do nothing.
    fn quit(&mut self) -> Result<(), MpsError> {
        if std::mem::replace(&mut self.stopped, true) {
            return Ok(());
        }
        let not_stopped = |why: String| MpsError::NotStopped { why };
        let mut client = self
            .control()
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| not_stopped(format!("could not run {CONTROL_DAEMON}: {error}")))?;
        if let Some(mut stdin) = client.stdin.take() {
            // A client that exits at once closes the pipe; its status says what happened.
            let _ = stdin.write_all(b"quit\n");
        }
        let deadline = Instant::now() + QUIT;
        match wait_until(client, deadline) {
            // `quit` returns at once; the daemon and its server leave after it.
            Ok(Some(status)) if status.success() => loop {
                let left = processes_using(&self.pipe);
                if left.is_empty() {
                    return Ok(());
                }
                if Instant::now() >= deadline {
                    return Err(not_stopped(format!(
                        "its processes {left:?} still ran {} s after `quit`",
                        QUIT.as_secs()
                    )));
                }
                std::thread::sleep(POLL);
            },
            Ok(Some(status)) => Err(not_stopped(format!("`quit` {status}"))),
            Ok(None) => Err(not_stopped(format!(
                "`quit` did not return within {} s",
                QUIT.as_secs()
            ))),
            Err(error) => Err(not_stopped(error.to_string())),
        }
    }

    /// `nvidia-cuda-mps-control` pointed at this daemon's folders.
    fn control(&self) -> Command {
        let mut command = Command::new(CONTROL_DAEMON);
        command
            .env(PIPE_DIRECTORY, &self.pipe)
            .env(LOG_DIRECTORY, &self.log);
        command
    }

    /// The control daemon's last log lines, for an error (the log folder goes with the job's).
    fn log_tail(&self) -> String {
        let text = fs::read_to_string(self.log.join("control.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(LOG_LINES)..].join("\n")
    }
}

impl Drop for PrivateMps {
    fn drop(&mut self) {
        // Reached only on a way out that has no report to give (a PE that could not start, a
        // panic); the normal end calls `stop` and reports its failure.
        let _ = self.quit();
    }
}

/// The processes whose environment names `pipe` as their MPS pipe folder: this job's control
/// daemon and the server it started (both inherit the folder). Processes that cannot be read
/// (another user's) are not this job's.
fn processes_using(pipe: &Path) -> Vec<u32> {
    let mut wanted = format!("{PIPE_DIRECTORY}=").into_bytes();
    wanted.extend_from_slice(pipe.as_os_str().as_encoded_bytes());
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|&byte| byte == 0).any(|var| var == wanted))
        })
        .collect()
}

/// Waits for `child` until `deadline`: its status, or `None` (and the child killed) if it is still
/// running then.
fn wait_until(mut child: Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            // Killed just now, so this wait is short.
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(POLL);
    }
}

/// The job's MPS daemon could not be started or stopped.
#[derive(Debug)]
pub enum MpsError {
    /// Its pipe or log folder could not be created.
    Folder {
        /// The folder.
        folder: PathBuf,
        /// Why not.
        source: io::Error,
    },
    /// `nvidia-cuda-mps-control` could not be run.
    Spawn(io::Error),
    /// `nvidia-cuda-mps-control -d` failed (`None`: it did not return in time).
    StartFailed {
        /// Its status.
        status: Option<ExitStatus>,
        /// The control daemon's last log lines.
        log: String,
    },
    /// The daemon started but opened no control pipe in time.
    NotReady {
        /// The pipe folder it was given.
        pipe: PathBuf,
        /// The control daemon's last log lines.
        log: String,
    },
    /// `quit` could not be delivered, or the daemon's processes did not leave after it.
    NotStopped {
        /// Why.
        why: String,
    },
}

impl fmt::Display for MpsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let log = |f: &mut fmt::Formatter<'_>, log: &str| {
            if log.is_empty() {
                Ok(())
            } else {
                write!(f, "; its log ends with:\n{log}")
            }
        };
        match self {
            MpsError::Folder { folder, source } => write!(
                f,
                "--mps could not create the MPS folder {}: {source}",
                folder.display()
            ),
            MpsError::Spawn(error) if error.kind() == io::ErrorKind::NotFound => write!(
                f,
                "--mps needs NVIDIA's MPS control program, {CONTROL_DAEMON}, which is not in \
                 PATH: install the NVIDIA driver's utilities (or add their folder to PATH), or \
                 run without --mps"
            ),
            MpsError::Spawn(error) => write!(f, "--mps could not run {CONTROL_DAEMON}: {error}"),
            MpsError::StartFailed { status, log: tail } => {
                match status {
                    Some(status) => write!(f, "`{CONTROL_DAEMON} -d` failed ({status})")?,
                    None => write!(
                        f,
                        "`{CONTROL_DAEMON} -d` did not return within {} s",
                        READY.as_secs()
                    )?,
                }
                write!(
                    f,
                    ", so the job's MPS daemon did not start (a GPU in the Prohibited compute \
                     mode refuses it: `nvidia-smi -q -d COMPUTE` shows the mode); run without \
                     --mps"
                )?;
                log(f, tail)
            }
            MpsError::NotReady { pipe, log: tail } => {
                write!(
                    f,
                    "the job's MPS daemon opened no control pipe in {} within {} s (a pipe \
                     folder path that is too long for a socket fails so: set TMPDIR to a short \
                     folder); run without --mps",
                    pipe.display(),
                    READY.as_secs()
                )?;
                log(f, tail)
            }
            MpsError::NotStopped { why } => write!(
                f,
                "could not stop the job's MPS daemon ({why}); it may still be running: find it \
                 with `pgrep -a -u $USER nvidia-cuda-mps` and end it with `kill PID`"
            ),
        }
    }
}

impl std::error::Error for MpsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MpsError::Folder { source, .. } | MpsError::Spawn(source) => Some(source),
            MpsError::StartFailed { .. }
            | MpsError::NotReady { .. }
            | MpsError::NotStopped { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processes_of_a_pipe_folder_are_found_by_their_environment() {
        // Only named in the environment, never opened.
        let folder = tempfile::tempdir().unwrap();
        let pipe = folder.path().join("mps-pipe");
        let mut child = Command::new("sleep")
            .arg("30")
            .env(PIPE_DIRECTORY, &pipe)
            .spawn()
            .expect("sleep runs");
        // Until it has exec'd, the child shows this process's environment.
        let deadline = Instant::now() + Duration::from_secs(10);
        while processes_using(&pipe).is_empty() && Instant::now() < deadline {
            std::thread::sleep(POLL);
        }
        assert_eq!(processes_using(&pipe), [child.id()]);
        // Another folder whose name starts the same is not this one.
        assert!(processes_using(&pipe.with_extension("x")).is_empty());
        assert!(processes_using(Path::new("/tmp")).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(processes_using(&pipe).is_empty());
    }

    #[test]
    fn each_pe_gets_an_equal_share_of_the_gpu() {
        let daemon = PrivateMps {
            pipe: "/job/mps-pipe".into(),
            log: "/job/mps-log".into(),
            // Nothing to stop: no daemon was started.
            stopped: true,
        };
        let share = |sharing| daemon.env_vars(sharing)[2].1.clone();
        assert_eq!(share(1), "100");
        assert_eq!(share(3), "33");
        assert_eq!(share(4), "25");
        assert_eq!(share(64), "1");
        let vars = daemon.env_vars(2);
        assert_eq!(vars[0], (PIPE_DIRECTORY, "/job/mps-pipe".into()));
        assert_eq!(vars[1], (LOG_DIRECTORY, "/job/mps-log".into()));
    }
}
