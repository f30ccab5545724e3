//! `--mps`: a private MPS control daemon per job, with a stand-in `nvidia-cuda-mps-control` on
//! PATH that records its calls, opens the control pipe, and runs a stand-in daemon process until
//! it is told to quit.

use crate::common::{Finished, Running, TempDir, assert_all_gone, start_with};

/// A folder holding the stand-in control program; its calls go to `calls` there.
struct StandIn {
    bin: TempDir,
    /// An empty folder for `CUDA_MPS_PIPE_DIRECTORY`, so that no MPS of the machine's is seen.
    no_mps: TempDir,
}

impl StandIn {
    /// A stand-in whose `-d` exits with `start_status` (after writing a log line) when it is not 0.
    fn new(start_status: i32) -> StandIn {
        let bin = TempDir::new();
        bin.script(
            "nvidia-cuda-mps-control",
            &format!(
                r#"
if [ "$1" = -d ]; then
    echo "start pipe=$CUDA_MPS_PIPE_DIRECTORY log=$CUDA_MPS_LOG_DIRECTORY modes=$(stat -c %a "$CUDA_MPS_PIPE_DIRECTORY") $(stat -c %a "$CUDA_MPS_LOG_DIRECTORY")" >> "$D/calls"
    echo "stand-in daemon log line" > "$CUDA_MPS_LOG_DIRECTORY/control.log"
    [ {start_status} = 0 ] || exit {start_status}
    sleep 1000 </dev/null >/dev/null 2>&1 &
    echo $! > "$D/daemon.pid"
    mkfifo "$CUDA_MPS_PIPE_DIRECTORY/control"
    exit 0
fi
read command
echo "$command pipe=$CUDA_MPS_PIPE_DIRECTORY log=$CUDA_MPS_LOG_DIRECTORY" >> "$D/calls"
[ "$command" = quit ] && kill "$(cat "$D/daemon.pid")" && rm "$CUDA_MPS_PIPE_DIRECTORY/control"
"#
            ),
        );
        StandIn {
            bin,
            no_mps: TempDir::new(),
        }
    }

    /// `nvshmemrun args…` on one GPU with the stand-in first in PATH.
    fn start(&self, args: &[&str]) -> Running {
        self.start_seeing(args, self.no_mps.path())
    }

    /// [`StandIn::start`] with `CUDA_MPS_PIPE_DIRECTORY` set to `pipe_directory`.
    fn start_seeing(&self, args: &[&str], pipe_directory: &str) -> Running {
        let path = format!("{}:{}", self.bin.path(), std::env::var("PATH").unwrap());
        start_with(
            args,
            Some("0"),
            &[("PATH", &path), ("CUDA_MPS_PIPE_DIRECTORY", pipe_directory)],
        )
    }

    /// The stand-in's calls, one line each.
    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(format!("{}/calls", self.bin.path()))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Asserts that the job started one daemon in private folders of the job's own and quit it
    /// through those folders, and that the stand-in daemon process is gone; returns the folders.
    fn assert_started_and_stopped(&self) -> (String, String) {
        let calls = self.calls();
        assert_eq!(calls.len(), 2, "{calls:?}");
        let folders = calls[0]
            .strip_prefix("start ")
            .and_then(|rest| rest.strip_suffix(" modes=700 700"))
            .unwrap_or_else(|| panic!("not a start in private folders: {}", calls[0]));
        assert_eq!(calls[1], format!("quit {folders}"));
        assert_all_gone(&self.bin.pids(&["daemon.pid"]));
        let (pipe, log) = folders.split_once(" log=").unwrap();
        let pipe = pipe.strip_prefix("pipe=").unwrap();
        assert_ne!(pipe, self.no_mps.path());
        (pipe.to_string(), log.to_string())
    }
}

/// A PE script that prints the MPS variables it got and whether the control pipe was there, then
/// runs `then`.
fn pe_script(dir: &TempDir, then: &str) -> String {
    dir.script(
        "pe.sh",
        &format!(
            r#"
[ -p "$CUDA_MPS_PIPE_DIRECTORY/control" ] && ready=ready || ready=missing
echo "mps $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE $ready in $NVSHMEMRS_RENDEZVOUS"
{then}
"#
        ),
    )
}

#[test]
fn the_daemon_is_private_serves_every_pe_and_is_stopped_after_success() {
    let stand_in = StandIn::new(0);
    let dir = TempDir::new();
    let script = pe_script(&dir, "");
    let done: Finished = stand_in
        .start(&["--mps", "-n", "4", "--pes-per-gpu", "4", &script])
        .finish();
    assert_eq!(done.code, Some(0));
    let (pipe, log) = stand_in.assert_started_and_stopped();
    for pe in 0..4 {
        let lines = done.stdout_of(pe);
        let rendezvous = lines[0].rsplit_once(" in ").unwrap().1;
        assert_eq!(
            lines[0],
            format!("mps {pipe} {log} 25 ready in {rendezvous}")
        );
        // Inside the job's private folder, which goes with the job.
        assert!(pipe.starts_with(rendezvous) && log.starts_with(rendezvous));
        assert!(!std::path::Path::new(rendezvous).exists());
    }
    assert!(!done.stderr.contains("warning"), "{}", done.stderr);
}

#[test]
fn the_daemon_is_stopped_when_a_pe_fails_or_is_killed() {
    for (fault, code) in [("exit 3", 3), ("kill -KILL $$", 137)] {
        let stand_in = StandIn::new(0);
        let dir = TempDir::new();
        let script = pe_script(
            &dir,
            &format!(r#"[ "$NVSHMEMRS_PE" = 1 ] && {fault}; exec sleep 1000"#),
        );
        let done = stand_in
            .start(&["--mps", "-n", "2", "--pes-per-gpu", "2", &script])
            .finish();
        assert_eq!(done.code, Some(code), "{fault}");
        let (pipe, _) = stand_in.assert_started_and_stopped();
        // The failing PE's last line, in the report, shows that it ran under the daemon.
        let seen = format!("last lines of PE 1:\n    [pe 1] mps {pipe} ");
        assert!(done.stderr.contains(&seen), "{fault}");
    }
}

#[test]
fn the_daemon_is_stopped_when_the_launcher_is_interrupted() {
    let stand_in = StandIn::new(0);
    let dir = TempDir::new();
    let script = pe_script(&dir, r#"touch "$D/up.$NVSHMEMRS_PE"; exec sleep 1000"#);
    let running = stand_in.start(&["--mps", "-n", "2", "--pes-per-gpu", "2", &script]);
    dir.wait_for_files(&["up.0", "up.1"]);
    let launcher = libc::pid_t::try_from(running.child.id()).unwrap();
    // SAFETY: `launcher` is our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(launcher, libc::SIGINT) }, 0);
    let done = running.finish();
    assert_eq!(done.code, Some(130));
    stand_in.assert_started_and_stopped();
}

#[test]
fn a_daemon_the_launcher_did_not_start_is_used_and_left_alone() {
    let stand_in = StandIn::new(0);
    let theirs = TempDir::new();
    let control = format!("{}/control", theirs.path());
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&control)
            .status()
            .unwrap()
            .success()
    );
    let dir = TempDir::new();
    let script = pe_script(&dir, "");
    let done = stand_in
        .start_seeing(
            &["--mps", "-n", "2", "--pes-per-gpu", "2", &script],
            theirs.path(),
        )
        .finish();
    assert_eq!(done.code, Some(0));
    assert_eq!(stand_in.calls(), Vec::<String>::new());
    assert!(std::path::Path::new(&control).exists());
    let seen = &done.stdout_of(0)[0];
    assert!(
        seen.starts_with(&format!("mps {}  ", theirs.path())),
        "{seen}"
    );
}

#[test]
fn sharing_a_gpu_without_mps_is_warned_about_before_the_job_runs() {
    let stand_in = StandIn::new(0);
    let dir = TempDir::new();
    let script = dir.script("pe.sh", r#"echo "pe $NVSHMEMRS_PE ran""#);
    let done = stand_in
        .start(&["-n", "2", "--pes-per-gpu", "2", &script])
        .finish();
    assert_eq!(done.code, Some(0));
    let warning = done.stderr.lines().next().unwrap_or_default();
    for needle in [
        "nvshmemrun: warning: 2 PEs will share a GPU without MPS",
        "2,247 µs",
        "collectives",
        "Pass --mps",
    ] {
        assert!(warning.contains(needle), "{needle:?} missing in {warning}");
    }
    assert_eq!(stand_in.calls(), Vec::<String>::new());
    // One PE per GPU shares nothing.
    let alone = stand_in
        .start(&["-n", "1", "--pes-per-gpu", "2", &script])
        .finish();
    assert!(!alone.stderr.contains("warning"), "{}", alone.stderr);
}

#[test]
fn a_daemon_that_cannot_start_stops_the_job_before_any_pe_with_its_log() {
    let stand_in = StandIn::new(1);
    let dir = TempDir::new();
    let script = dir.script("pe.sh", r#"touch "$D/ran""#);
    let done = stand_in
        .start(&["--mps", "-n", "2", "--pes-per-gpu", "2", &script])
        .finish();
    assert_eq!(done.code, Some(1));
    for needle in [
        "nvshmemrun: error: `nvidia-cuda-mps-control -d` failed (exit status: 1)",
        "run without --mps",
        "stand-in daemon log line",
    ] {
        assert!(done.stderr.contains(needle), "{needle:?} missing");
    }
    assert!(!std::path::Path::new(&format!("{}/ran", dir.path())).exists());
}

#[test]
fn a_missing_control_program_is_named() {
    let stand_in = StandIn::new(0);
    let nothing = TempDir::new();
    let done = start_with(
        &["--mps", "-n", "1", "true"],
        Some("0"),
        &[
            ("PATH", nothing.path()),
            ("CUDA_MPS_PIPE_DIRECTORY", stand_in.no_mps.path()),
        ],
    )
    .finish();
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr
            .contains("nvidia-cuda-mps-control, which is not in PATH"),
        "{}",
        done.stderr
    );
}
