//! A deadline on NVSHMEM's unique-id initialisation.
//!
//! `nvshmemx_init_attr` with a unique id blocks until every PE of the job has joined, with no
//! timeout of its own: a PE that died before it joined (or was never started) leaves the others
//! waiting forever. A watchdog thread ends this process with a message when the deadline
//! ([`INIT_TIMEOUT`], default [`DEFAULT_INIT_TIMEOUT`]) passes first; NVSHMEM's call cannot be
//! interrupted, so ending the process is the only way out.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// The variable that sets the deadline, in seconds (`0`: none).
pub const INIT_TIMEOUT: &str = "NVSHMEMRS_INIT_TIMEOUT";
/// The deadline when [`INIT_TIMEOUT`] is unset: ample for NVSHMEM's own start on one machine.
pub const DEFAULT_INIT_TIMEOUT: Duration = Duration::from_secs(120);
/// The exit status of a PE whose initialisation ran out of time (as `timeout(1)`'s).
pub(crate) const EXPIRED_STATUS: i32 = 124;

/// The deadline [`INIT_TIMEOUT`]'s `value` sets: `None` for `0`; an error naming the variable for
/// anything but a non-negative number of seconds.
pub(crate) fn from_setting(value: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(text) = value.map(str::trim).filter(|text| !text.is_empty()) else {
        return Ok(Some(DEFAULT_INIT_TIMEOUT));
    };
    match text.parse::<f64>().ok().map(Duration::try_from_secs_f64) {
        Some(Ok(limit)) if limit.is_zero() => Ok(None),
        Some(Ok(limit)) => Ok(Some(limit)),
        _ => Err(format!(
            "{INIT_TIMEOUT}={text} is not a number of seconds; set it to e.g. 300, or 0 for no \
             deadline on NVSHMEM's initialisation"
        )),
    }
}

/// What a PE prints when its initialisation ran out of time.
pub(crate) fn expiry_message(pe: i32, n_pes: i32, limit: Duration) -> String {
    format!(
        "nvshmem-rs: PE {pe} of {n_pes}: NVSHMEM's initialisation did not complete within {} s: \
         not all {n_pes} PEs joined with the unique id (NVSHMEM does not say which arrived). A PE \
         that died before joining, or was never started, leaves the others waiting: start every PE \
         0..{n_pes} with the same id, or set {INIT_TIMEOUT}=SECONDS for a longer deadline (0: \
         none). Ending this PE with status {EXPIRED_STATUS}.",
        limit.as_secs_f64()
    )
}

/// A running watchdog; dropping it disarms it.
#[derive(Debug)]
pub(crate) struct Watchdog {
    disarm: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Calls `expire` on a thread of its own if `limit` passes before the watchdog is dropped; no
    /// thread for `None`.
    pub(crate) fn arm(limit: Option<Duration>, expire: impl FnOnce() + Send + 'static) -> Watchdog {
        let Some(limit) = limit else {
            return Watchdog {
                disarm: None,
                thread: None,
            };
        };
        let (disarm, disarmed) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("nvshmem-init-deadline".into())
            .spawn(move || {
                if disarmed.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                    expire();
                }
            })
            .ok();
        Watchdog {
            disarm: Some(disarm),
            thread,
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        // Closing the channel wakes the thread, which then ends at once.
        drop(self.disarm.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Ends this process at once with `message` on stderr: NVSHMEM's initialisation holds the other
/// threads, and its exit handlers may wait for the PEs that never came, so none of them run.
pub(crate) fn end_process(message: &str) -> ! {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{message}");
    // SAFETY: `_exit` ends the process without running exit handlers; nothing is left to uphold.
    unsafe { libc::_exit(EXPIRED_STATUS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    /// A watchdog over a fake initialisation that takes `init`; whether it expired.
    fn expired_during(limit: Option<Duration>, init: Duration) -> bool {
        let expired = Arc::new(AtomicBool::new(false));
        let flag = expired.clone();
        let watchdog = Watchdog::arm(limit, move || flag.store(true, Ordering::SeqCst));
        std::thread::sleep(init);
        drop(watchdog);
        expired.load(Ordering::SeqCst)
    }

    #[test]
    fn an_initialisation_past_the_deadline_expires_and_one_within_it_does_not() {
        let limit = Some(Duration::from_millis(50));
        assert!(expired_during(limit, Duration::from_millis(400)));
        let start = Instant::now();
        assert!(!expired_during(
            Some(Duration::from_secs(30)),
            Duration::ZERO
        ));
        assert!(start.elapsed() < Duration::from_secs(5), "disarming waited");
        assert!(!expired_during(None, Duration::from_millis(100)));
    }

    #[test]
    fn the_setting_gives_the_deadline_and_0_none() {
        assert_eq!(from_setting(None), Ok(Some(DEFAULT_INIT_TIMEOUT)));
        assert_eq!(from_setting(Some(" ")), Ok(Some(DEFAULT_INIT_TIMEOUT)));
        assert_eq!(from_setting(Some("0")), Ok(None));
        assert_eq!(
            from_setting(Some("2.5")),
            Ok(Some(Duration::from_millis(2500)))
        );
        for wrong in ["-1", "soon", "inf", "NaN"] {
            let error = from_setting(Some(wrong)).unwrap_err();
            assert!(error.contains("NVSHMEMRS_INIT_TIMEOUT"), "{error}");
        }
    }

    #[test]
    fn the_message_names_the_count_and_the_setting() {
        let text = expiry_message(0, 2, Duration::from_secs(120));
        for needle in [
            "PE 0 of 2",
            "within 120 s",
            "not all 2 PEs joined",
            "NVSHMEMRS_INIT_TIMEOUT=SECONDS",
            "(0: none)",
        ] {
            assert!(text.contains(needle), "{needle:?} missing in {text}");
        }
    }
}
