//! Starting PE processes, watching them, and ending them.
//!
//! Nothing here blocks without a bound: processes are polled (with `waitid`, without blocking) every
//! [`POLL`], and every wait (for the grace period, for reaping, for output) has a deadline.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nvshmem_pe_env::PeIdentity;

use crate::groups::{self, ProcessGroup};
use crate::outcome::{Ending, PeEnd, PeReport};
use crate::output::{self, Tail};
use crate::signals::SignalWatch;

/// How often processes are polled.
const POLL: Duration = Duration::from_millis(10);
/// How long PEs get to end after being asked to (SIGTERM or the forwarded signal) before SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// How long a PE gets to exit by itself after NVSHMEM printed that it is ending the process
/// (NVSHMEM's own `exit` takes milliseconds when it does not hang).
const ABORT_GRACE: Duration = Duration::from_secs(2);
/// How long to wait for PEs to be reaped after SIGKILL before giving up on them.
const REAP_AFTER_KILL: Duration = Duration::from_secs(1);
/// How long to wait, once every PE has ended, for the rest of their output.
const OUTPUT_DRAIN: Duration = Duration::from_secs(1);

/// One started PE.
#[derive(Debug)]
pub(crate) struct RunningPe {
    pe: usize,
    child: Child,
    group: Option<ProcessGroup>,
    end: Option<PeEnd>,
    stopped_by_launcher: bool,
    pumps: Vec<JoinHandle<()>>,
    tail: Arc<Tail>,
}

/// NVSHMEM's variable naming the network interface its unique-id bootstrap listens on.
const UID_SOCK_IFNAME: &str = "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME";

/// The interface for the PEs' unique-id bootstrap, given the launcher's own [`UID_SOCK_IFNAME`]:
/// every PE runs on this machine, so the loopback interface, which no other machine reaches,
/// unless the user chose one.
fn bootstrap_interface(chosen: Option<&OsStr>) -> Option<(&'static str, &'static str)> {
    chosen.is_none().then_some((UID_SOCK_IFNAME, "lo"))
}

impl RunningPe {
    /// Starts `program args…` as the PE `identity`, in its own process group, with `env` added to
    /// its environment and its output pumped to the launcher's (prefixed with `[pe K] ` when
    /// `prefix` is set).
    ///
    /// The PE's stdin is empty, and it gets SIGKILL if the launcher's thread dies first.
    pub(crate) fn spawn(
        program: &OsStr,
        args: &[OsString],
        identity: &PeIdentity,
        env: &[(&str, OsString)],
        prefix: bool,
    ) -> io::Result<RunningPe> {
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(identity.env_vars())
            .envs(env.iter().map(|(name, value)| (name, value)))
            .envs(bootstrap_interface(
                std::env::var_os(UID_SOCK_IFNAME).as_deref(),
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let launcher = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        let die_with_launcher = move || {
            // SAFETY: `prctl(PR_SET_PDEATHSIG)` only sets an attribute of the calling process.
            if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `getppid` has no preconditions. If the launcher died before the `prctl`, the
            // death signal will never come, so the PE must not start.
            if unsafe { libc::getppid() } != launcher {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        };
        // SAFETY: the closure runs in the forked child before `exec`; it only makes two system
        // calls and builds `io::Error`s from OS codes, none of which allocates or takes a lock.
        unsafe { command.pre_exec(die_with_launcher) };
        let mut child = command.spawn()?;
        let group = ProcessGroup::led_by(child.id());
        let tail = Arc::new(Tail::default());
        let prefix = if prefix {
            format!("[pe {}] ", identity.pe).into_bytes()
        } else {
            Vec::new()
        };
        let mut pumps = Vec::with_capacity(2);
        let mut started = || -> io::Result<()> {
            if let Some(stdout) = child.stdout.take() {
                pumps.push(output::pump(
                    stdout,
                    output::to_stdout,
                    prefix.clone(),
                    tail.clone(),
                )?);
            }
            if let Some(stderr) = child.stderr.take() {
                pumps.push(output::pump(
                    stderr,
                    output::to_stderr,
                    prefix.clone(),
                    tail.clone(),
                )?);
            }
            Ok(())
        };
        if let Err(error) = started() {
            if let Some(group) = group {
                group.signal(libc::SIGKILL);
            }
            // The PE was just killed, so this wait is short.
            let _ = child.wait();
            return Err(error);
        }
        Ok(RunningPe {
            pe: identity.pe,
            child,
            group,
            end: None,
            stopped_by_launcher: false,
            pumps,
            tail,
        })
    }

    /// Checks, without blocking, whether the PE has ended; returns its end if it ended just now.
    ///
    /// An ended PE is left unreaped (a zombie) until [`RunningPe::into_report`], so that its
    /// process id, which is also its process group's id, cannot be reused meanwhile: signalling the
    /// group can then never reach an unrelated process.
    fn poll(&mut self) -> Option<PeEnd> {
        if self.end.is_some() {
            return None;
        }
        // Cannot fail for our own, unreaped child; treat a failure as a lost PE rather than poll
        // forever.
        let end = peek_end(self.child.id()).unwrap_or(Some(PeEnd::Unreaped))?;
        self.end = Some(end);
        Some(end)
    }

    /// Sends `signal` to the PE's process group. The PE leads its group (so it cannot `setsid` out
    /// of it), and while it is unreaped (`poll` never reaps) the group
    /// id cannot be reused by an unrelated process.
    fn signal(&self, signal: libc::c_int) {
        if let Some(group) = self.group {
            group.signal(signal);
        }
    }

    /// Reaps the PE if it has ended (a PE given up on is left alone). Call after [`stop_all`] or
    /// once every PE has ended.
    pub(crate) fn reap(&mut self) {
        if matches!(self.end, Some(PeEnd::Exited(_) | PeEnd::Signaled(_))) {
            // It has ended, so this does not block; the status is already known.
            let _ = self.child.try_wait();
        }
    }

    /// The PE's report, reaping it; call after [`stop_all`] or once every PE has ended.
    pub(crate) fn into_report(mut self) -> PeReport {
        self.reap();
        PeReport {
            pe: self.pe,
            pid: self.child.id(),
            end: self.end.unwrap_or(PeEnd::Unreaped),
            stopped_by_launcher: self.stopped_by_launcher,
            last_lines: self.tail.lines(),
            nvshmem_abort: self.tail.fatal().map(|fatal| fatal.line.clone()),
        }
    }
}

/// How the child process `pid` ended, if it has, without reaping it (`waitid` with `WNOWAIT`).
fn peek_end(pid: u32) -> io::Result<Option<PeEnd>> {
    let id = libc::id_t::from(pid);
    // SAFETY: an all-zero `siginfo_t` is a valid value of this plain C struct.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let options = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: `info` is a valid, writable `siginfo_t` that outlives the call.
    if unsafe { libc::waitid(libc::P_PID, id, &mut info, options) } != 0 {
        let error = io::Error::last_os_error();
        return match error.kind() {
            io::ErrorKind::Interrupted => Ok(None),
            _ => Err(error),
        };
    }
    // SAFETY: after a successful `waitid`, the kernel has filled in the child fields of `info`
    // (`si_pid` stays 0 when, with `WNOHANG`, the child has not ended).
    let (ended, status) = unsafe { (info.si_pid() != 0, info.si_status()) };
    Ok(ended.then_some(match info.si_code {
        libc::CLD_EXITED => PeEnd::Exited(status),
        // CLD_KILLED or CLD_DUMPED: `WEXITED` reports nothing else.
        _ => PeEnd::Signaled(status),
    }))
}

/// Polls every PE; returns the lowest-numbered PE that failed in this round, if any.
fn poll_all(pes: &mut [RunningPe]) -> Option<usize> {
    let mut failed = None;
    for pe in pes.iter_mut() {
        if let Some(end) = pe.poll()
            && !end.success()
        {
            failed = failed.or(Some(pe.pe));
        }
    }
    failed
}

/// The running PE whose NVSHMEM said longest ago that it was ending the process, if that was
/// [`ABORT_GRACE`] or more ago.
fn overdue_abort(pes: &[RunningPe]) -> Option<usize> {
    pes.iter()
        .filter(|pe| pe.end.is_none())
        .filter_map(|pe| Some((pe.tail.fatal()?.at, pe.pe)))
        .filter(|(at, _)| at.elapsed() >= ABORT_GRACE)
        .min()
        .map(|(_, pe)| pe)
}

/// Watches the PEs until they all succeed, one fails, a PE whose NVSHMEM aborted does not exit
/// within [`ABORT_GRACE`], `timeout` (counted from `start`) runs out, or the launcher receives a
/// signal.
pub(crate) fn watch(
    pes: &mut [RunningPe],
    start: Instant,
    timeout: Option<Duration>,
    signals: &SignalWatch,
) -> Ending {
    loop {
        if let Some(pe) = poll_all(pes) {
            return Ending::PeFailed { pe };
        }
        if pes.iter().all(|pe| pe.end.is_some()) {
            return Ending::Success;
        }
        if let Some(signal) = signals.received() {
            return Ending::Interrupted { signal };
        }
        if let Some(pe) = overdue_abort(pes) {
            return Ending::NvshmemAborted {
                pe,
                grace: ABORT_GRACE,
            };
        }
        if let Some(limit) = timeout
            && start.elapsed() >= limit
        {
            return Ending::TimedOut {
                limit,
                still_running: pes
                    .iter()
                    .filter(|pe| pe.end.is_none())
                    .map(|pe| pe.pe)
                    .collect(),
            };
        }
        std::thread::sleep(POLL);
    }
}

/// Ends every PE: sends `signal` to every PE's process group, waits up to [`GRACE`] for the PEs to
/// end and the groups to empty, then sends SIGKILL to those that have not; a further signal to the launcher skips the
/// rest of the grace period. Finally reaps every PE, giving up after [`REAP_AFTER_KILL`].
pub(crate) fn stop_all(pes: &mut [RunningPe], signal: libc::c_int, signals: &SignalWatch) {
    let interrupts = signals.count();
    poll_all(pes);
    for pe in pes.iter_mut() {
        pe.stopped_by_launcher |= pe.end.is_none();
        pe.signal(signal);
    }
    let groups: Vec<ProcessGroup> = pes.iter().filter_map(|pe| pe.group).collect();
    let grace_end = Instant::now() + GRACE;
    loop {
        poll_all(pes);
        let live = groups::live_groups(&groups);
        if live.is_empty() && pes.iter().all(|pe| pe.end.is_some()) {
            break;
        }
        if Instant::now() >= grace_end || signals.count() != interrupts {
            for pe in pes.iter() {
                if pe.end.is_none() || pe.group.is_some_and(|g| live.contains(&g)) {
                    pe.signal(libc::SIGKILL);
                }
            }
            break;
        }
        std::thread::sleep(POLL);
    }
    let reap_end = Instant::now() + REAP_AFTER_KILL;
    while pes.iter().any(|pe| pe.end.is_none()) && Instant::now() < reap_end {
        std::thread::sleep(POLL);
        poll_all(pes);
    }
    for pe in pes.iter_mut().filter(|pe| pe.end.is_none()) {
        pe.end = Some(PeEnd::Unreaped);
    }
}

/// Waits up to [`OUTPUT_DRAIN`] for the PEs' output to be copied out. Pumps still running then
/// (their pipe held open by a process that escaped its PE's group) are left behind.
pub(crate) fn drain_output(pes: &mut [RunningPe]) {
    let deadline = Instant::now() + OUTPUT_DRAIN;
    let mut pumps: Vec<JoinHandle<()>> = pes.iter_mut().flat_map(|pe| pe.pumps.drain(..)).collect();
    while !pumps.is_empty() && Instant::now() < deadline {
        let (finished, running): (Vec<_>, Vec<_>) =
            pumps.into_iter().partition(JoinHandle::is_finished);
        for pump in finished {
            // A pump that panicked has lost only output; there is nothing to recover.
            let _ = pump.join();
        }
        pumps = running;
        if !pumps.is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_listens_on_loopback_unless_the_user_chose() {
        assert_eq!(bootstrap_interface(None), Some((UID_SOCK_IFNAME, "lo")));
        assert_eq!(bootstrap_interface(Some(OsStr::new("ib0"))), None);
    }
}
