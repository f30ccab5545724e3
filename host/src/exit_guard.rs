//! Ending the process at once when it exits while NVSHMEM is live.
//!
//! A program may call `std::process::exit` (or NVSHMEM its own `exit`) without finalizing. `exit`
//! then runs the exit handlers that CUDA and NVSHMEM registered, whose teardown waits for kernels
//! that can no longer finish (a PE waiting in a barrier for a peer that is gone), so the process
//! hangs and the launcher never learns that it failed.
//!
//! The guard's handler is registered after NVSHMEM's initialisation, so `exit` runs it before those
//! handlers (they run in the reverse order of registration). While the guard is armed, it ends the
//! process with the status `exit` was given, skipping the teardown.
//!
//! This is known to work for the program's own `exit` (`std::process::exit` while armed). It is
//! not enough when NVSHMEM's proxy thread gives up ("aborting due to error in process_channel_dma",
//! then `exit(-1)`): the process has been seen to hang with no warning from this handler, so
//! something ran before it (a handler registered after the guard's, say) and hung. `nvshmemrun`
//! covers that case: it ends a PE that has not exited 2 s after such a line.

use std::ffi::c_void;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

static ARMED: AtomicBool = AtomicBool::new(false);
static REGISTER: Once = Once::new();

/// Arms the guard. Call it once NVSHMEM's initialisation has run (successfully or not), so that
/// the handlers NVSHMEM and CUDA registered are older than the guard's.
pub(crate) fn arm() {
    REGISTER.call_once(|| {
        // SAFETY: `on_exit_handler` is a plain function that lives as long as the program; the
        // argument is unused.
        let registered = unsafe { on_exit(on_exit_handler, std::ptr::null_mut()) };
        if registered != 0 {
            log::warn!("could not register the exit guard; a PE whose NVSHMEM aborts may hang");
        }
    });
    ARMED.store(true, Ordering::SeqCst);
}

/// Disarms the guard, once NVSHMEM is finalised and an ordinary `exit` is safe again.
pub(crate) fn disarm() {
    ARMED.store(false, Ordering::SeqCst);
}

/// Ends the process now with `status`, after flushing Rust's standard output, without running exit
/// handlers or destructors.
pub(crate) fn end_now(status: i32) -> ! {
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe { _exit(status) }
}

extern "C" fn on_exit_handler(status: i32, _argument: *mut c_void) {
    if ARMED.load(Ordering::SeqCst) {
        log::warn!(
            "exiting with status {status} while NVSHMEM is initialised (NVSHMEM gave up: see its \
             message above; or the program exited without finalizing); ending the process now, \
             without NVSHMEM's teardown, which would wait for kernels that cannot finish"
        );
        end_now(status)
    }
}

unsafe extern "C" {
    /// glibc's `on_exit`: registers a handler that `exit` runs with its status.
    fn on_exit(handler: extern "C" fn(i32, *mut c_void), argument: *mut c_void) -> i32;
    /// POSIX `_exit`: ends the process without running exit handlers or destructors.
    fn _exit(status: i32) -> !;
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// Set in the child process that the test starts.
    const CHILD: &str = "NVSHMEMRS_EXIT_GUARD_TEST_CHILD";
    /// What the child's stand-in for NVSHMEM's teardown prints.
    const TEARDOWN: &str = "teardown ran";

    unsafe extern "C" {
        /// C's `atexit`.
        fn atexit(handler: extern "C" fn()) -> i32;
    }

    /// Stands in for a teardown that waits for a kernel that never finishes.
    extern "C" fn slow_teardown() {
        eprintln!("{TEARDOWN}");
        std::thread::sleep(Duration::from_secs(3));
    }

    /// In the child: registers the slow teardown, then arms the guard (as initialisation does after
    /// NVSHMEM registered its handlers), then exits with 7 while armed.
    fn child() -> ! {
        // SAFETY: `slow_teardown` is a plain function that lives as long as the program.
        assert_eq!(unsafe { atexit(slow_teardown) }, 0);
        super::arm();
        std::process::exit(7)
    }

    #[test]
    fn exiting_while_armed_skips_older_handlers_and_keeps_the_status() {
        if std::env::var_os(CHILD).is_some() {
            child();
        }
        let started = Instant::now();
        let output = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "exit_guard::tests::exiting_while_armed_skips_older_handlers_and_keeps_the_status",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(7), "{stderr}");
        assert!(
            !stderr.contains(TEARDOWN),
            "the older handler ran: {stderr}"
        );
        assert!(started.elapsed() < Duration::from_secs(3), "{stderr}");
    }
}
