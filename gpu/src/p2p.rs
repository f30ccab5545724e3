//! Point-to-point synchronisation: wait until, or test whether, symmetric variables that other PEs
//! write meet a condition (NVSHMEM: "Point-to-point synchronization routines").
//!
//! The variables (`ivars`) are [`WaitElement`]s in the symmetric heap, written by other PEs with
//! `p`, puts, atomics or signals. The condition is a [`Cmp`] against a value (or, in the `_vector`
//! forms, against one value per variable). The `_all`, `_any` and `_some` forms take an optional
//! `skip` mask: entry `i` non-zero leaves `ivars[i]` out.
//!
//! Every wait, and every test that finds its condition true, ends with an acquire at system scope
//! in the calling thread (a `ld.acquire.sys` of the one awaited variable, a `fence.acq_rel.sys`
//! after the forms that await several): what the writers of the variables wrote before them
//! (a put's data before its `p`, say, ordered by [`crate::sync::fence`] or a put with signal) is
//! then what this thread, and after a block barrier its block, reads, even where an earlier read
//! left the old values in this multiprocessor's L1 cache.
//!
//! A wait whose condition never becomes true hangs the kernel, and with it the job: while debugging,
//! `wait_until_timeout` (GPU target only) polls with a cycle budget and, when it runs out, prints which PE waited for
//! what and traps, so the launch fails instead of hanging.
//!
//! ```no_run
//! use nvshmem_gpu::{p2p, Cmp};
//! # unsafe fn example(flags: nvshmem_gpu::SymmetricPtr<u64>, n: usize) {
//! // SAFETY: `flags` holds `n` symmetric words that the other PEs set to 1.
//! unsafe { p2p::wait_until_all(flags, n, None, Cmp::Eq, 1) };
//! # }
//! ```
//!
//! Only the thread scope exists (NVSHMEM has no warp or block waits), so a scoped wait is a compile
//! error:
//!
//! ```
//! # unsafe fn f(flag: nvshmem_gpu::SymmetricPtr<u64>) {
//! unsafe { nvshmem_gpu::p2p::wait_until(flag, nvshmem_gpu::Cmp::Eq, 1) };
//! # }
//! ```
//!
//! ```compile_fail,E0433
//! # unsafe fn f(flag: nvshmem_gpu::SymmetricPtr<u64>) {
//! unsafe { nvshmem_gpu::p2p::warp::wait_until(flag, nvshmem_gpu::Cmp::Eq, 1) };
//! # }
//! ```

pub use nvshmem_abi::Cmp;

use crate::element::WaitElement;
use nvshmem_abi::SymmetricPtr;

fn skip_ptr(skip: Option<&[i32]>) -> *const i32 {
    skip.map_or(core::ptr::null(), <[i32]>::as_ptr)
}

/// With checks on, the wait polls the matching test: `polled!(ready, expired, nvshmem, acquire)` is
/// what `ready` gives once it gives something, with `expired` (given the nanoseconds waited) called
/// when the module's time limit passes first (`deadline.rs`); without checks it is `nvshmem`,
/// NVSHMEM's own wait. Either way the thread then runs `acquire` ([`acquire_from`] for one awaited
/// variable, [`acquire`] for several), so that the caller reads what was written before the
/// awaited values.
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
macro_rules! polled {
    ($ready:expr, $expired:expr, $nvshmem:expr, $acquire:expr $(,)?) => {{
        let found = crate::deadline::poll($ready, $expired);
        $acquire;
        found
    }};
}
#[cfg(not(all(target_arch = "nvptx64", feature = "checks")))]
macro_rules! polled {
    ($ready:expr, $expired:expr, $nvshmem:expr, $acquire:expr $(,)?) => {{
        let found = $nvshmem;
        $acquire;
        found
    }};
}

pub(crate) use polled;

/// The `expired` argument of [`polled!`] for the wait `$name` on `$count` variables at `$ivars`.
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
macro_rules! waits_expired {
    ($name:literal, $ivars:expr, $count:expr) => {
        |waited| {
            crate::debug::waits_expired(
                crate::checks::wrapper_name!($name),
                waited,
                $ivars.as_ptr().cast_const().cast(),
                $count,
            )
        }
    };
}

/// With checks on, makes the calling `_any`/`_some` wait return `$none` at once when every variable
/// is skipped, as NVSHMEM's does (its test would never succeed, and the poll would time out).
macro_rules! return_if_nothing_to_wait_for {
    ($count:expr, $skip:expr, $none:expr) => {
        #[cfg(all(target_arch = "nvptx64", feature = "checks"))]
        if crate::deadline::nothing_to_wait_for($count, $skip) {
            return $none;
        }
    };
}

/// The acquire that ends every wait and every test that succeeds on several variables
/// (`fence.acq_rel.sys`): this thread's later accesses, and through a block barrier its block's,
/// come after the reads that saw the awaited values, so they see what the writers wrote before
/// those values (the data of a put with signal, for one), from any GPU, instead of lines this
/// multiprocessor's L1 cache kept from an earlier read. NVSHMEM's own waits and tests end with
/// `__threadfence()` (GPU scope) in 3.4.5 and 3.8.0, but its `nvshmem_signal_wait_until` has no
/// fence in 3.4.5, and the polling forms of the `checks` feature read with volatile loads, which
/// order nothing: one acquire here, after the poll and not in it, covers every form the same way.
#[inline(always)]
pub(crate) fn acquire() {
    #[cfg(target_arch = "nvptx64")]
    crate::memory::fence_acq_rel_system();
}

/// The acquire that ends a wait or successful test on the one variable at `ivar`: it reads the
/// variable again with `ld.acquire.sys`, which sees the awaited value or a later one, and so
/// acquires what its writer released. A fence would also wait for this thread's own stores to
/// reach the other PEs, which in a ping-pong (a `p`, then a wait for the answer) costs about half a
/// microsecond per round trip.
///
/// # Safety
/// `ivar` is a valid, aligned address of a 2-, 4- or 8-byte variable.
#[inline(always)]
pub(crate) unsafe fn acquire_from<T>(ivar: *const T) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract above.
    unsafe {
        crate::memory::load_acquire_system(ivar)
    };
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = ivar;
}

/// `found`, after an [`acquire`] if `succeeded`: the end of a test on several variables.
#[inline(always)]
fn acquired_if<R>(succeeded: bool, found: R) -> R {
    if succeeded {
        acquire();
    }
    found
}

/// A `_some` test's count as a poll's result: `None` while it found nothing.
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
fn some_found(found: usize) -> Option<usize> {
    (found > 0).then_some(found)
}

/// Index results: NVSHMEM's `SIZE_MAX` means "none".
fn index(found: usize) -> Option<usize> {
    (found != usize::MAX).then_some(found)
}

/// Waits until `*ivar <cmp> value` (`nvshmem_<T>_wait_until`).
///
/// # Safety
/// `ivar` is a symmetric `T`; whoever must write it for the condition to hold runs concurrently
/// (other PEs, or other blocks of a cooperative launch). Otherwise the kernel hangs.
#[inline]
pub unsafe fn wait_until<T: WaitElement>(ivar: SymmetricPtr<T>, cmp: Cmp, value: T) {
    polled!(
        // SAFETY: the caller's contract above.
        // (NVSHMEM's test itself: the acquire follows once, after the poll.)
        || unsafe { (T::WAIT.test)(ivar.as_ptr(), cmp as i32, value) != 0 }.then_some(()),
        |waited| {
            // SAFETY: as above; a volatile read of the variable for the message.
            let now = unsafe { core::ptr::read_volatile(ivar.as_ptr()) };
            crate::debug::wait_expired(
                crate::checks::wrapper_name!("wait_until"),
                waited,
                ivar.as_ptr().cast_const().cast(),
                cmp.c_symbol(),
                value.widen(),
                now.widen(),
            )
        },
        // SAFETY: the caller's contract above.
        unsafe { (T::WAIT.wait_until)(ivar.as_ptr(), cmp as i32, value) },
        // SAFETY: the caller's contract above.
        unsafe { acquire_from(ivar.as_ptr()) },
    )
}

/// Waits until `ivars[i] <cmp> value` for every `i` in `0..count` not skipped
/// (`nvshmem_<T>_wait_until_all`).
///
/// # Safety
/// `ivars` holds `count` symmetric `T`s, `skip` (if given) at least `count` entries; as for
/// [`wait_until`].
#[inline]
pub unsafe fn wait_until_all<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) {
    polled!(
        // SAFETY: the caller's contract above.
        || unsafe { test_all(ivars, count, skip, cmp, value) }.then_some(()),
        waits_expired!("wait_until_all", ivars, count),
        // SAFETY: the caller's contract above.
        unsafe {
            (T::WAIT.wait_until_all)(ivars.as_ptr(), count, skip_ptr(skip), cmp as i32, value)
        },
        acquire(),
    )
}

/// Waits until `ivars[i] <cmp> value` for some `i` not skipped, and returns that `i`; `None` if
/// every variable is skipped (`nvshmem_<T>_wait_until_any`).
///
/// # Safety
/// As for [`wait_until_all`].
#[inline]
pub unsafe fn wait_until_any<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) -> Option<usize> {
    return_if_nothing_to_wait_for!(count, skip, None);
    polled!(
        // SAFETY: the caller's contract above.
        || unsafe { test_any(ivars, count, skip, cmp, value) }.map(Some),
        waits_expired!("wait_until_any", ivars, count),
        // SAFETY: the caller's contract above.
        index(unsafe {
            (T::WAIT.wait_until_any)(ivars.as_ptr(), count, skip_ptr(skip), cmp as i32, value)
        }),
        acquire(),
    )
}

/// Waits until `ivars[i] <cmp> value` for at least one `i` not skipped, writes every such `i` to
/// `indices` and returns how many (`nvshmem_<T>_wait_until_some`).
///
/// # Safety
/// As for [`wait_until_all`], and `indices` has at least `count` entries.
#[inline]
pub unsafe fn wait_until_some<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    indices: &mut [usize],
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) -> usize {
    return_if_nothing_to_wait_for!(count, skip, 0);
    polled!(
        // SAFETY: the caller's contract above.
        || some_found(unsafe { test_some(ivars, count, indices, skip, cmp, value) }),
        waits_expired!("wait_until_some", ivars, count),
        // SAFETY: the caller's contract above.
        unsafe {
            (T::WAIT.wait_until_some)(
                ivars.as_ptr(),
                count,
                indices.as_mut_ptr(),
                skip_ptr(skip),
                cmp as i32,
                value,
            )
        },
        acquire(),
    )
}

/// Waits until `ivars[i] <cmp> values[i]` for every `i` not skipped
/// (`nvshmem_<T>_wait_until_all_vector`).
///
/// # Safety
/// As for [`wait_until_all`], and `values` has at least `count` entries.
#[inline]
pub unsafe fn wait_until_all_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) {
    polled!(
        // SAFETY: the caller's contract above.
        || unsafe { test_all_vector(ivars, count, skip, cmp, values) }.then_some(()),
        waits_expired!("wait_until_all_vector", ivars, count),
        // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
        unsafe {
            (T::WAIT.wait_until_all_vector)(
                ivars.as_ptr(),
                count,
                skip_ptr(skip),
                cmp as i32,
                values.as_ptr().cast_mut(),
            )
        },
        acquire(),
    )
}

/// Waits until `ivars[i] <cmp> values[i]` for some `i` not skipped and returns it
/// (`nvshmem_<T>_wait_until_any_vector`).
///
/// # Safety
/// As for [`wait_until_all_vector`].
#[inline]
pub unsafe fn wait_until_any_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) -> Option<usize> {
    return_if_nothing_to_wait_for!(count, skip, None);
    polled!(
        // SAFETY: the caller's contract above.
        || unsafe { test_any_vector(ivars, count, skip, cmp, values) }.map(Some),
        waits_expired!("wait_until_any_vector", ivars, count),
        // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
        index(unsafe {
            (T::WAIT.wait_until_any_vector)(
                ivars.as_ptr(),
                count,
                skip_ptr(skip),
                cmp as i32,
                values.as_ptr().cast_mut(),
            )
        }),
        acquire(),
    )
}

/// Waits until `ivars[i] <cmp> values[i]` for at least one `i`, writes every such `i` to `indices`
/// and returns how many (`nvshmem_<T>_wait_until_some_vector`).
///
/// # Safety
/// As for [`wait_until_all_vector`], and `indices` has at least `count` entries.
#[inline]
pub unsafe fn wait_until_some_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    indices: &mut [usize],
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) -> usize {
    return_if_nothing_to_wait_for!(count, skip, 0);
    polled!(
        // SAFETY: the caller's contract above.
        || some_found(unsafe { test_some_vector(ivars, count, indices, skip, cmp, values) }),
        waits_expired!("wait_until_some_vector", ivars, count),
        // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
        unsafe {
            (T::WAIT.wait_until_some_vector)(
                ivars.as_ptr(),
                count,
                indices.as_mut_ptr(),
                skip_ptr(skip),
                cmp as i32,
                values.as_ptr().cast_mut(),
            )
        },
        acquire(),
    )
}

/// Whether `*ivar <cmp> value` now (`nvshmem_<T>_test`).
///
/// # Safety
/// `ivar` is a symmetric `T`.
#[inline]
pub unsafe fn test<T: WaitElement>(ivar: SymmetricPtr<T>, cmp: Cmp, value: T) -> bool {
    // SAFETY: the caller's contract above.
    let holds = unsafe { (T::WAIT.test)(ivar.as_ptr(), cmp as i32, value) != 0 };
    if holds {
        // SAFETY: the caller's contract above.
        unsafe { acquire_from(ivar.as_ptr()) };
    }
    holds
}

/// Whether `ivars[i] <cmp> value` now for every `i` not skipped (`nvshmem_<T>_test_all`).
///
/// # Safety
/// `ivars` holds `count` symmetric `T`s and `skip` (if given) at least `count` entries.
#[inline]
pub unsafe fn test_all<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) -> bool {
    // SAFETY: the caller's contract above.
    let holds =
        unsafe { (T::WAIT.test_all)(ivars.as_ptr(), count, skip_ptr(skip), cmp as i32, value) }
            != 0;
    acquired_if(holds, holds)
}

/// Some `i` not skipped with `ivars[i] <cmp> value` now, if any (`nvshmem_<T>_test_any`).
///
/// # Safety
/// As for [`test_all`].
#[inline]
pub unsafe fn test_any<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) -> Option<usize> {
    // SAFETY: the caller's contract above.
    let found = index(unsafe {
        (T::WAIT.test_any)(ivars.as_ptr(), count, skip_ptr(skip), cmp as i32, value)
    });
    acquired_if(found.is_some(), found)
}

/// Writes every `i` not skipped with `ivars[i] <cmp> value` now to `indices` and returns how many
/// (`nvshmem_<T>_test_some`).
///
/// # Safety
/// As for [`test_all`], and `indices` has at least `count` entries.
#[inline]
pub unsafe fn test_some<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    indices: &mut [usize],
    skip: Option<&[i32]>,
    cmp: Cmp,
    value: T,
) -> usize {
    // SAFETY: the caller's contract above.
    let found = unsafe {
        (T::WAIT.test_some)(
            ivars.as_ptr(),
            count,
            indices.as_mut_ptr(),
            skip_ptr(skip),
            cmp as i32,
            value,
        )
    };
    acquired_if(found > 0, found)
}

/// Whether `ivars[i] <cmp> values[i]` now for every `i` not skipped
/// (`nvshmem_<T>_test_all_vector`).
///
/// # Safety
/// As for [`test_all`], and `values` has at least `count` entries.
#[inline]
pub unsafe fn test_all_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) -> bool {
    // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
    let holds = unsafe {
        (T::WAIT.test_all_vector)(
            ivars.as_ptr(),
            count,
            skip_ptr(skip),
            cmp as i32,
            values.as_ptr().cast_mut(),
        ) != 0
    };
    acquired_if(holds, holds)
}

/// Some `i` not skipped with `ivars[i] <cmp> values[i]` now, if any
/// (`nvshmem_<T>_test_any_vector`).
///
/// # Safety
/// As for [`test_all_vector`].
#[inline]
pub unsafe fn test_any_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) -> Option<usize> {
    // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
    let found = index(unsafe {
        (T::WAIT.test_any_vector)(
            ivars.as_ptr(),
            count,
            skip_ptr(skip),
            cmp as i32,
            values.as_ptr().cast_mut(),
        )
    });
    acquired_if(found.is_some(), found)
}

/// Writes every `i` not skipped with `ivars[i] <cmp> values[i]` now to `indices` and returns how
/// many (`nvshmem_<T>_test_some_vector`).
///
/// # Safety
/// As for [`test_all_vector`], and `indices` has at least `count` entries.
#[inline]
pub unsafe fn test_some_vector<T: WaitElement>(
    ivars: SymmetricPtr<T>,
    count: usize,
    indices: &mut [usize],
    skip: Option<&[i32]>,
    cmp: Cmp,
    values: &[T],
) -> usize {
    // SAFETY: the caller's contract above; NVSHMEM only reads `values`.
    let found = unsafe {
        (T::WAIT.test_some_vector)(
            ivars.as_ptr(),
            count,
            indices.as_mut_ptr(),
            skip_ptr(skip),
            cmp as i32,
            values.as_ptr().cast_mut(),
        )
    };
    acquired_if(found > 0, found)
}

/// [`wait_until`] with a budget: polls `*ivar <cmp> value` with `nvshmem_<T>_test` and, when
/// `budget_cycles` GPU clock cycles (`%clock64`, about 1.5–2 × 10⁹ per second) pass without the
/// condition holding, prints
///
/// ```text
/// nvshmem-gpu: PE 3 (block 0, thread 0): wait_until_timeout gave up after 2000000000 cycles: waiting for *0x7f…40 == 1, it is 0
/// ```
///
/// and traps. The launch then fails on the host (CUDA reports an illegal instruction or an
/// unspecified launch failure), so a dead or misbehaving peer ends the job with an error instead of
/// hanging it. A debugging aid: it costs a clock read per poll, and the budget must exceed any
/// legitimate wait.
///
/// # Safety
/// As for [`wait_until`], except that a condition that never holds traps instead of hanging.
#[cfg(target_arch = "nvptx64")]
#[inline]
pub unsafe fn wait_until_timeout<T: WaitElement>(
    ivar: SymmetricPtr<T>,
    cmp: Cmp,
    value: T,
    budget_cycles: u64,
) {
    let start = crate::debug::clock64();
    loop {
        // SAFETY: `ivar` is a symmetric `T` (caller's contract). The test acquires when it holds.
        if unsafe { test(ivar, cmp, value) } {
            return;
        }
        if crate::debug::clock64().wrapping_sub(start) > budget_cycles {
            // SAFETY: as above; a volatile read of the variable for the message.
            let now = unsafe { core::ptr::read_volatile(ivar.as_ptr()) };
            crate::debug::wait_timed_out(
                c"wait_until_timeout",
                ivar.as_ptr().cast(),
                cmp.c_symbol(),
                value.widen(),
                now.widen(),
                budget_cycles,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_match_nvshmem_numbering_and_meaning() {
        let all = [Cmp::Eq, Cmp::Ne, Cmp::Gt, Cmp::Le, Cmp::Lt, Cmp::Ge];
        assert_eq!(all.map(|c| c as i32), [0, 1, 2, 3, 4, 5]);
        assert!(Cmp::Ge.holds(3, 3) && !Cmp::Gt.holds(3, 3) && Cmp::Le.holds(2, 3));
        assert_eq!(Cmp::Ne.c_symbol().to_bytes(), b"!=");
    }

    #[test]
    fn none_found_is_size_max() {
        assert_eq!(index(usize::MAX), None);
        assert_eq!(index(3), Some(3));
    }
}
