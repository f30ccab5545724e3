//! Running `nvshmemrun` in tests, with a hard limit so that a broken launcher fails the test
//! instead of hanging it.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The launcher's guarantee: after a PE fails, everything is over within this.
pub const GUARANTEE: Duration = Duration::from_secs(5);

/// Past this, a test gives up on the launcher and kills it.
const HARD_LIMIT: Duration = Duration::from_secs(60);

/// A finished `nvshmemrun`.
#[derive(Debug)]
pub struct Finished {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// From starting the launcher to noticing its exit (polled every 2 ms).
    pub elapsed: Duration,
}

impl Finished {
    /// The stdout lines that PE `pe` printed, without their prefix.
    pub fn stdout_of(&self, pe: usize) -> Vec<&str> {
        let prefix = format!("[pe {pe}] ");
        self.stdout
            .lines()
            .filter_map(|line| line.strip_prefix(prefix.as_str()))
            .collect()
    }
}

/// A running `nvshmemrun`.
pub struct Running {
    pub child: Child,
    start: Instant,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

/// Starts `nvshmemrun args…` with `CUDA_VISIBLE_DEVICES` set to `visible` (or unset for `None`).
pub fn start(args: &[&str], visible: Option<&str>) -> Running {
    start_with(args, visible, &[])
}

/// [`start`] with the variables `env` set too.
pub fn start_with(args: &[&str], visible: Option<&str>, env: &[(&str, &str)]) -> Running {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nvshmemrun"));
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match visible {
        Some(value) => command.env("CUDA_VISIBLE_DEVICES", value),
        None => command.env_remove("CUDA_VISIBLE_DEVICES"),
    };
    let start = Instant::now();
    let mut child = command.spawn().expect("nvshmemrun starts");
    let stdout = read_all(child.stdout.take().unwrap());
    let stderr = read_all(child.stderr.take().unwrap());
    Running {
        child,
        start,
        stdout,
        stderr,
    }
}

fn read_all(mut from: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

impl Running {
    /// Waits (at most [`HARD_LIMIT`]) for the launcher to exit.
    pub fn finish(mut self) -> Finished {
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if self.start.elapsed() > HARD_LIMIT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("nvshmemrun still running after {HARD_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let elapsed = self.start.elapsed();
        let finished = Finished {
            code: status.code(),
            stdout: self.stdout.join().unwrap(),
            stderr: self.stderr.join().unwrap(),
            elapsed,
        };
        eprintln!(
            "--- nvshmemrun exited with {:?} after {:?}\n--- stdout:\n{}--- stderr:\n{}",
            finished.code, finished.elapsed, finished.stdout, finished.stderr
        );
        finished
    }
}

/// Runs `nvshmemrun args…` to the end.
pub fn run(args: &[&str], visible: Option<&str>) -> Finished {
    start(args, visible).finish()
}

/// A new private temporary folder, removed when dropped.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    pub fn new() -> TempDir {
        TempDir(tempfile::tempdir().unwrap())
    }

    /// This folder's path as text.
    pub fn path(&self) -> &str {
        self.0.path().to_str().unwrap()
    }

    /// Writes an executable `sh` script named `name` with `body`, and returns its path as text.
    /// In the body, `$D` is this folder.
    pub fn script(&self, name: &str, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.path().join(name);
        let text = format!("#!/bin/sh\nD='{}'\n{body}\n", self.0.path().display());
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// Waits (at most 30 s) until every file in `names` exists in this folder.
    pub fn wait_for_files(&self, names: &[&str]) {
        let start = Instant::now();
        while !names.iter().all(|name| self.0.path().join(name).exists()) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{names:?} did not appear"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The process ids written (space-separated) in the files `names` of this folder.
    pub fn pids(&self, names: &[&str]) -> Vec<u32> {
        names
            .iter()
            .flat_map(|name| {
                let text = std::fs::read_to_string(self.0.path().join(name))
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                text.split_whitespace()
                    .map(|pid| pid.parse::<u32>().unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Whether process `pid` is still running: it exists and is not a zombie (an orphaned zombie
/// holds nothing, and a container's first process may never reap it).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat[stat.rfind(')').unwrap() + 1..]
                .trim_start()
                .chars()
                .next();
            !matches!(state, Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// Asserts that none of `pids` is running any more.
pub fn assert_all_gone(pids: &[u32]) {
    let alive: Vec<u32> = pids.iter().copied().filter(|&pid| alive(pid)).collect();
    assert!(alive.is_empty(), "still running: {alive:?} (of {pids:?})");
}
