//! A program's own size for NVSHMEM's symmetric heap ([`crate::Nvshmem::init_with_heap`]).
//!
//! NVSHMEM takes the heap's size from one place only, its variable `NVSHMEM_SYMMETRIC_SIZE`, which
//! it reads while it initialises. A program that knows what it will allocate sets that variable for
//! NVSHMEM here, just before. Changing the environment is sound only while no other thread can read
//! or write it (a C `getenv` racing `setenv` reads freed memory), so it is done only when this
//! thread is the process's only one: no other thread exists to race it, and none can start
//! meanwhile but from this one.

use crate::InitError;
use crate::environment::SYMMETRIC_SIZE;
use std::ffi::OsString;

/// Sets `NVSHMEM_SYMMETRIC_SIZE` to hold `heap_bytes` (whole MiB, rounded up) unless the
/// environment already sets it: a user's setting for one run wins over the program's.
pub(crate) fn request(heap_bytes: usize) -> Result<(), InitError> {
    let Some(value) = setting(std::env::var_os(SYMMETRIC_SIZE), heap_bytes) else {
        return Ok(());
    };
    if !alone_in_process() {
        return Err(InitError::HeapNotSized { value });
    }
    // SAFETY: this thread is the process's only one (just checked), so no other thread reads or
    // writes the environment while it changes; NVSHMEM starts its threads later, in its init.
    unsafe { std::env::set_var(SYMMETRIC_SIZE, &value) };
    Ok(())
}

/// The value to give `NVSHMEM_SYMMETRIC_SIZE` for `heap_bytes`, or `None` when the environment
/// already has one (`given`).
fn setting(given: Option<OsString>, heap_bytes: usize) -> Option<String> {
    match given {
        Some(_) => None,
        None => Some(format!("{}M", heap_bytes.div_ceil(1 << 20))),
    }
}

/// Whether the calling thread is the only thread of this process (Linux's `/proc/self/task`
/// lists one entry per thread); `false` where that cannot be read.
fn alone_in_process() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|threads| threads.count() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn the_environment_wins_and_the_program_gets_whole_mib() {
        assert_eq!(setting(Some("3G".into()), 5 << 20), None);
        assert_eq!(setting(None, 1).as_deref(), Some("1M"));
        assert_eq!(setting(None, 1 << 20).as_deref(), Some("1M"));
        assert_eq!(setting(None, (1 << 20) + 1).as_deref(), Some("2M"));
    }

    #[test]
    fn a_second_thread_is_seen() {
        let (stop, stopped) = mpsc::channel::<()>();
        let other = std::thread::spawn(move || stopped.recv());
        assert!(
            !alone_in_process(),
            "a second thread runs, so setting the environment must wait"
        );
        drop(stop);
        let _ = other.join();
    }

    #[test]
    fn a_request_beside_another_thread_is_refused_with_the_value() {
        if std::env::var_os(SYMMETRIC_SIZE).is_some() {
            return; // the environment's size wins, and nothing is set.
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let other = std::thread::spawn(move || stopped.recv());
        let refused = request(3 << 20);
        drop(stop);
        let _ = other.join();
        match refused {
            Err(InitError::HeapNotSized { value }) => assert_eq!(value, "3M"),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(std::env::var_os(SYMMETRIC_SIZE), None);
    }
}
