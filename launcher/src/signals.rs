//! Signals sent to the launcher itself (Ctrl-C, `kill`), and the names of signals.
//!
//! The PEs run in their own process groups, so a Ctrl-C at the terminal reaches only the launcher;
//! the launcher notices it through a [`SignalWatch`] and passes it on to the PEs.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// The signals a [`SignalWatch`] catches: Ctrl-C, `kill`'s default, and a closed terminal.
const WATCHED: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// How many watched signals have arrived since the process started.
static RECEIVED: AtomicUsize = AtomicUsize::new(0);
/// The most recent watched signal.
static LAST: AtomicI32 = AtomicI32::new(0);

/// The handlers that were in place before the first live [`SignalWatch`], and how many watches
/// are live.
static INSTALLED: Mutex<Option<(usize, Vec<libc::sigaction>)>> = Mutex::new(None);

/// The signal handler: only lock-free atomics, which are async-signal-safe.
extern "C" fn on_signal(signal: libc::c_int) {
    LAST.store(signal, Ordering::SeqCst);
    RECEIVED.fetch_add(1, Ordering::SeqCst);
}

/// While alive, SIGINT, SIGTERM and SIGHUP no longer end this process; they are counted instead.
///
/// Watches may overlap (several launches at once); the original handlers come back when the last
/// one is dropped.
#[derive(Debug)]
pub(crate) struct SignalWatch {
    /// [`RECEIVED`] when the watch started.
    start: usize,
}

impl SignalWatch {
    /// Installs the handlers (if no other watch has) and starts counting.
    pub(crate) fn start() -> io::Result<SignalWatch> {
        let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
        match installed.as_mut() {
            Some((users, _)) => *users += 1,
            None => {
                let mut previous = Vec::with_capacity(WATCHED.len());
                for signal in WATCHED {
                    // SAFETY: an all-zero `sigaction` is a valid value of this plain C struct.
                    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    action.sa_flags = libc::SA_RESTART;
                    // SAFETY: `sa_mask` is a valid, writable `sigset_t`.
                    unsafe { libc::sigemptyset(&mut action.sa_mask) };
                    // SAFETY: as above, zeroed is a valid `sigaction` to be overwritten.
                    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
                    // SAFETY: both pointers refer to live `sigaction` values, and the handler only
                    // touches atomics, which is async-signal-safe.
                    if unsafe { libc::sigaction(signal, &action, &mut old) } != 0 {
                        let error = io::Error::last_os_error();
                        restore(&previous);
                        return Err(error);
                    }
                    previous.push(old);
                }
                *installed = Some((1, previous));
            }
        }
        Ok(SignalWatch {
            start: RECEIVED.load(Ordering::SeqCst),
        })
    }

    /// How many watched signals arrived since this watch started.
    pub(crate) fn count(&self) -> usize {
        RECEIVED.load(Ordering::SeqCst).wrapping_sub(self.start)
    }

    /// The latest watched signal, if any arrived since this watch started.
    pub(crate) fn received(&self) -> Option<libc::c_int> {
        (self.count() > 0).then(|| LAST.load(Ordering::SeqCst))
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((users, previous)) = installed.as_mut() {
            *users -= 1;
            if *users == 0 {
                restore(previous);
                *installed = None;
            }
        }
    }
}

/// Puts back the handlers in `previous` (one per [`WATCHED`] signal, in order).
fn restore(previous: &[libc::sigaction]) {
    for (signal, old) in WATCHED.into_iter().zip(previous) {
        // SAFETY: `old` is a `sigaction` the kernel filled in for this signal; a null pointer for
        // the old action is allowed.
        unsafe { libc::sigaction(signal, old, std::ptr::null_mut()) };
    }
}

/// The usual name of `signal` (`SIGKILL` for 9), if it is a common one.
pub(crate) fn name(signal: libc::c_int) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// `signal` as text: `9 (SIGKILL)`, or just the number for uncommon ones.
pub(crate) fn describe(signal: libc::c_int) -> String {
    match name(signal) {
        Some(name) => format!("{signal} ({name})"),
        None => signal.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_common_signals() {
        assert_eq!(describe(9), "9 (SIGKILL)");
        assert_eq!(describe(11), "11 (SIGSEGV)");
        assert_eq!(describe(64), "64");
    }
}
