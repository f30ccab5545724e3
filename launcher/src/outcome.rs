//! How a job ended: per PE, for the job as a whole, and as the launcher's exit status.

use std::fmt;
use std::time::Duration;

use crate::signals;
use nvshmem_pe_env::mps::{Mps, RESTART};

/// How one PE's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeEnd {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Signaled(i32),
    /// It was still there after SIGKILL and a further wait (stuck in the kernel or a driver); the
    /// launcher gave up on it.
    Unreaped,
}

impl PeEnd {
    /// Whether this counts as success: exit status 0.
    pub fn success(self) -> bool {
        self == PeEnd::Exited(0)
    }

    /// The exit status a shell would report for it: the status, or 128 + the signal. 1 for
    /// [`PeEnd::Unreaped`].
    pub fn exit_code(self) -> i32 {
        match self {
            PeEnd::Exited(code) => code,
            PeEnd::Signaled(signal) => 128 + signal,
            PeEnd::Unreaped => 1,
        }
    }
}

impl fmt::Display for PeEnd {
    /// `exited with status 3`, `killed by signal 9 (SIGKILL)`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeEnd::Exited(code) => write!(f, "exited with status {code}"),
            PeEnd::Signaled(signal) => {
                write!(f, "killed by signal {}", signals::describe(*signal))
            }
            PeEnd::Unreaped => write!(f, "did not end even after SIGKILL"),
        }
    }
}

/// What happened to one PE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeReport {
    /// The PE's number.
    pub pe: usize,
    /// Its process id.
    pub pid: u32,
    /// How it ended.
    pub end: PeEnd,
    /// Whether the launcher had told it to stop (after another PE failed, on timeout, or when the
    /// launcher was interrupted) before it ended.
    pub stopped_by_launcher: bool,
    /// Its last output lines (at most [`crate::TAIL_LINES`]), without the `[pe K] ` prefix: stdout
    /// and stderr together, in the order the launcher read them (which, across the two pipes, may
    /// differ slightly from the order the PE wrote them).
    pub last_lines: Vec<String>,
    /// The first line in which NVSHMEM said that it was ending the process (`…: aborting due to
    /// error in process_channel_dma`, say), if it printed one.
    pub nvshmem_abort: Option<String>,
}

/// Why the job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Every PE exited with status 0.
    Success,
    /// This PE exited with a non-zero status or was killed by a signal (the first one the launcher
    /// saw), so the launcher ended the others.
    PeFailed {
        /// The failing PE.
        pe: usize,
    },
    /// The job's time limit ran out, and the launcher ended the PEs still running.
    TimedOut {
        /// The limit.
        limit: Duration,
        /// The PEs that were still running when it ran out.
        still_running: Vec<usize>,
    },
    /// The launcher received this signal (SIGINT, SIGTERM or SIGHUP), passed it on to the PEs and
    /// ended them.
    Interrupted {
        /// The signal.
        signal: i32,
    },
    /// NVSHMEM printed in this PE's output that it was ending the process ([`PeReport::nvshmem_abort`]),
    /// but the PE was still running `grace` later (NVSHMEM's `exit` can hang in its teardown), so
    /// the launcher ended it and the other PEs.
    NvshmemAborted {
        /// The PE (the first whose grace ran out).
        pe: usize,
        /// How long it had to exit by itself.
        grace: Duration,
    },
}

/// The exit status NVSHMEM ends a process with when it gives up (`exit(-1)`), which the launcher
/// reports for [`Ending::NvshmemAborted`].
pub const NVSHMEM_EXIT_STATUS: i32 = 255;

/// The result of a job that was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Why it ended.
    pub ending: Ending,
    /// One report per PE, in PE order.
    pub pes: Vec<PeReport>,
    /// From the start of the first PE to the end of supervision.
    pub elapsed: Duration,
    /// Why the job's own MPS daemon ([`crate::Launch::mps`]) may still be running, when stopping
    /// it failed (with how to find and end it); `None` when it stopped or the job had none.
    pub mps_left_running: Option<String>,
}

impl Outcome {
    /// The launcher's exit status for this outcome:
    ///
    /// - 0 when every PE succeeded;
    /// - the failing PE's exit status, or 128 + its signal (137 for SIGKILL, 139 for SIGSEGV);
    /// - 124 on timeout;
    /// - 128 + the signal when interrupted (130 for SIGINT, 143 for SIGTERM);
    /// - [`NVSHMEM_EXIT_STATUS`] (255) when NVSHMEM aborted in a PE that then did not exit.
    pub fn exit_code(&self) -> i32 {
        match &self.ending {
            Ending::Success => 0,
            Ending::PeFailed { pe } => self.pes[*pe].end.exit_code(),
            Ending::TimedOut { .. } => 124,
            Ending::Interrupted { signal } => 128 + signal,
            Ending::NvshmemAborted { .. } => NVSHMEM_EXIT_STATUS,
        }
    }

    /// What to add to the report of a job that failed while MPS serves the GPUs (`None` for one
    /// that succeeded): a PE that died, or was ended, while its kernel ran can leave the MPS server
    /// failing every later client, which the next job could not tell from a bug of its own.
    pub fn mps_advice(&self, mps: &Mps) -> Option<String> {
        (self.ending != Ending::Success).then(|| {
            format!(
                "MPS is in use ({mps}): a PE that ended while its kernel ran can leave the MPS \
                 server in a failed state, refusing later jobs (\"unspecified launch failure\" \
                 when they start CUDA); if the next job fails so, restart the server: {RESTART}"
            )
        })
    }

    /// The PEs other than `pe` that the launcher stopped, as `0, 2, 3`.
    fn stopped_except(&self, pe: Option<usize>) -> String {
        list(
            self.pes
                .iter()
                .filter(|r| r.stopped_by_launcher && Some(r.pe) != pe)
                .map(|r| r.pe),
        )
    }

    /// Writes the last lines of PE `pe`.
    fn write_last_lines(&self, f: &mut fmt::Formatter<'_>, pe: usize) -> fmt::Result {
        let lines = &self.pes[pe].last_lines;
        if lines.is_empty() {
            return write!(f, "\nPE {pe} printed nothing");
        }
        write!(f, "\nlast lines of PE {pe}:")?;
        for line in lines {
            write!(f, "\n    [pe {pe}] {line}")?;
        }
        Ok(())
    }

    /// Writes one line per PE other than `except` that did not simply exit with status 0.
    fn write_others(&self, f: &mut fmt::Formatter<'_>, except: Option<usize>) -> fmt::Result {
        for report in self.pes.iter().filter(|r| Some(r.pe) != except) {
            if report.end.success() && !report.stopped_by_launcher {
                continue;
            }
            write!(f, "\n  PE {}: {}", report.pe, report.end)?;
            if report.stopped_by_launcher {
                write!(f, " (stopped by the launcher)")?;
            }
            write_nvshmem_abort(f, report)?;
        }
        Ok(())
    }

    /// Writes the start of the report for PE `pe`, whose failure ended the job: what happened to
    /// it and which other PEs the launcher ended; then its last lines and how the others ended.
    fn write_failure(
        &self,
        f: &mut fmt::Formatter<'_>,
        pe: usize,
        what: impl FnOnce(&mut fmt::Formatter<'_>) -> fmt::Result,
    ) -> fmt::Result {
        write!(f, "PE {pe} ")?;
        what(f)?;
        let stopped = self.stopped_except(Some(pe));
        if !stopped.is_empty() {
            write!(f, "; ended the other PEs still running ({stopped})")?;
        }
        self.write_last_lines(f, pe)?;
        if self.pes.len() > 1 {
            write!(f, "\nthe other PEs:")?;
            self.write_others(f, Some(pe))?;
        }
        Ok(())
    }
}

impl fmt::Display for Outcome {
    /// A summary for people: which PE ended the job and how, and its last lines. Several lines,
    /// without a final line ending.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.ending {
            Ending::Success => write!(
                f,
                "all {} PEs exited with status 0 ({:.2?})",
                self.pes.len(),
                self.elapsed
            ),
            Ending::PeFailed { pe } => {
                let report = &self.pes[*pe];
                self.write_failure(f, *pe, |f| {
                    write!(f, "{}", report.end)?;
                    write_nvshmem_abort(f, report)
                })
            }
            Ending::NvshmemAborted { pe, grace } => {
                let report = &self.pes[*pe];
                self.write_failure(f, *pe, |f| {
                    write!(f, "did not exit by itself within {grace:?}")?;
                    write_nvshmem_abort(f, report)?;
                    write!(
                        f,
                        " (NVSHMEM's exit hangs in its teardown), so the launcher ended it ({})",
                        report.end
                    )
                })
            }
            Ending::TimedOut {
                limit,
                still_running,
            } => {
                write!(
                    f,
                    "timed out after {limit:?} with PEs {} still running; ended them",
                    list(still_running.iter().copied())
                )?;
                for &pe in still_running {
                    self.write_last_lines(f, pe)?;
                }
                write!(f, "\nhow they ended:")?;
                self.write_others(f, None)
            }
            Ending::Interrupted { signal } => {
                let name = signals::name(*signal).unwrap_or("a signal");
                write!(f, "received {name}; passed it on to the PEs and ended them")?;
                let stopped = self.stopped_except(None);
                if !stopped.is_empty() {
                    write!(f, " (were running: {stopped})")?;
                }
                write!(f, "\nhow they ended:")?;
                self.write_others(f, None)
            }
        }
    }
}

/// Writes ` after NVSHMEM aborted: "…"` when NVSHMEM said, in `report`'s PE, that it was ending
/// the process.
fn write_nvshmem_abort(f: &mut fmt::Formatter<'_>, report: &PeReport) -> fmt::Result {
    match &report.nvshmem_abort {
        Some(line) => write!(f, " after NVSHMEM aborted: \"{line}\""),
        None => Ok(()),
    }
}

/// `0, 2, 3`.
fn list(pes: impl Iterator<Item = usize>) -> String {
    pes.map(|pe| pe.to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(pe: usize, end: PeEnd, stopped: bool) -> PeReport {
        PeReport {
            pe,
            pid: 100 + pe as u32,
            end,
            stopped_by_launcher: stopped,
            last_lines: vec![format!("hello from {pe}")],
            nvshmem_abort: None,
        }
    }

    #[test]
    fn exit_codes() {
        let mut outcome = Outcome {
            ending: Ending::Success,
            pes: vec![
                report(0, PeEnd::Signaled(15), true),
                report(1, PeEnd::Signaled(11), false),
            ],
            elapsed: Duration::from_millis(20),
            mps_left_running: None,
        };
        assert_eq!(outcome.exit_code(), 0);
        outcome.ending = Ending::PeFailed { pe: 1 };
        assert_eq!(outcome.exit_code(), 139);
        let text = outcome.to_string();
        assert!(
            text.starts_with("PE 1 killed by signal 11 (SIGSEGV)"),
            "{text}"
        );
        assert!(text.contains("[pe 1] hello from 1"), "{text}");
        assert!(
            text.contains("PE 0: killed by signal 15 (SIGTERM) (stopped"),
            "{text}"
        );
        outcome.ending = Ending::TimedOut {
            limit: Duration::from_secs(1),
            still_running: vec![0],
        };
        assert_eq!(outcome.exit_code(), 124);
        outcome.ending = Ending::Interrupted { signal: 2 };
        assert_eq!(outcome.exit_code(), 130);
        assert!(outcome.to_string().starts_with("received SIGINT"));
        outcome.ending = Ending::NvshmemAborted {
            pe: 1,
            grace: Duration::from_secs(2),
        };
        outcome.pes[1] = PeReport {
            nvshmem_abort: Some("aborting due to error in x".into()),
            ..report(1, PeEnd::Signaled(15), true)
        };
        assert_eq!(outcome.exit_code(), 255);
        let text = outcome.to_string();
        assert!(
            text.starts_with(
                "PE 1 did not exit by itself within 2s after NVSHMEM aborted: \"aborting due to \
                 error in x\" (NVSHMEM's exit hangs in its teardown), so the launcher ended it \
                 (killed by signal 15 (SIGTERM))"
            ),
            "{text}"
        );
        assert_eq!(PeEnd::Exited(3).to_string(), "exited with status 3");
    }

    #[test]
    fn a_failed_job_under_mps_says_the_server_may_need_restarting() {
        let mut outcome = Outcome {
            ending: Ending::PeFailed { pe: 1 },
            pes: vec![
                report(0, PeEnd::Signaled(15), true),
                report(1, PeEnd::Signaled(9), false),
            ],
            elapsed: Duration::from_millis(20),
            mps_left_running: None,
        };
        let mps = Mps::Pipe("/tmp/nvidia-mps".into());
        let advice = outcome.mps_advice(&mps).unwrap();
        for part in [
            "MPS is in use (control pipe in /tmp/nvidia-mps)",
            "failed state",
            "echo quit | nvidia-cuda-mps-control",
        ] {
            assert!(advice.contains(part), "no `{part}` in: {advice}");
        }
        outcome.ending = Ending::Success;
        assert_eq!(outcome.mps_advice(&mps), None);
    }
}
