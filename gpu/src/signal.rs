//! Signals: puts that update a 64-bit signal word at the destination once the data has arrived,
//! and operations on signal words (NVSHMEM: "Signaling operations").
//!
//! A signal word is a `u64` in the symmetric heap. [`put_signal`] copies data to a peer and then
//! applies [`SignalOp`] to the peer's signal word, so a peer that waits on the word
//! ([`signal_wait_until`], or [`crate::p2p::wait_until`]) sees the data once the signal changes:
//! the wait ends with an acquire (see [`crate::p2p`]), so the waiting thread's plain loads, and
//! after a block barrier its block's, read the data that came with the signal, also where a slot
//! is reused and an earlier round's lines are still in this multiprocessor's L1 cache.
//! [`warp`] and [`block`] hold the cooperative forms.
//!
//! ```no_run
//! use nvshmem_gpu::{signal::{self, SignalOp}, Cmp};
//! # unsafe fn example(data: nvshmem_gpu::SymmetricPtr<f32>, row: *const f32, n: usize, flag: nvshmem_gpu::SymmetricPtr<u64>, next: i32) {
//! // SAFETY: buffers of `n` elements and a signal word on every PE; `next` is a PE.
//! unsafe { signal::put_signal(data, row, n, flag, 1, SignalOp::Add, next) };
//! // On the receiving PE: wait until one put has arrived.
//! // SAFETY: `flag` is a symmetric signal word.
//! unsafe { signal::signal_wait_until(flag, Cmp::Ge, 1) };
//! # }
//! ```

pub use nvshmem_abi::SignalOp;

use crate::element::Element;
use crate::ffi;
use crate::p2p::Cmp;
use nvshmem_abi::SymmetricPtr;

/// Applies `op` with `value` to the signal word `signal` on PE `pe` (`nvshmemx_signal_op`).
///
/// # Safety
/// `signal` is a symmetric `u64` on every PE and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn signal_op(signal: SymmetricPtr<u64>, value: u64, op: SignalOp, pe: i32) {
    crate::checks::check_pe!("signal_op", pe);
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmemx_signal_op(signal.as_ptr(), value, op as i32, pe) }
}

/// Reads the local signal word atomically (`nvshmem_signal_fetch`).
///
/// # Safety
/// `signal` is a symmetric `u64`.
#[inline]
pub unsafe fn signal_fetch(signal: SymmetricPtr<u64>) -> u64 {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmem_signal_fetch(signal.as_ptr()) }
}

/// Waits until the local signal word compares to `value` as `cmp` says, and returns the word
/// (`nvshmem_signal_wait_until`), then acquires: this thread's later reads see what the signalling
/// PEs wrote before their signals (NVSHMEM 3.4.5's own wait does not fence; see [`crate::p2p`]).
///
/// # Safety
/// `signal` is a symmetric `u64`; the kernel is launched cooperatively when another block or PE
/// must run for the condition to become true. A condition that never becomes true hangs the kernel:
/// see `p2p::wait_until_timeout` for a variant that traps instead.
#[inline]
pub unsafe fn signal_wait_until(signal: SymmetricPtr<u64>, cmp: Cmp, value: u64) -> u64 {
    crate::p2p::polled!(
        || {
            // SAFETY: the caller's contract above.
            let now = unsafe { signal_fetch(signal) };
            cmp.holds(now, value).then_some(now)
        },
        |waited| {
            // SAFETY: as above.
            let now = unsafe { signal_fetch(signal) };
            crate::debug::wait_expired(
                crate::checks::wrapper_name!("signal_wait_until"),
                waited,
                signal.as_ptr().cast_const().cast(),
                cmp.c_symbol(),
                value as i64,
                now as i64,
            )
        },
        // SAFETY: the caller's contract above.
        unsafe { ffi::nvshmem_signal_wait_until(signal.as_ptr(), cmp as i32, value) },
        // SAFETY: the caller's contract above.
        unsafe { crate::p2p::acquire_from(signal.as_ptr()) }
    )
}

/// `put_signal` of `$bytes` bytes at scope `$scope` (`thread`, `warp` or `block`) through
/// [`crate::peer::put_signal`]: over loads and stores where the peer is mapped, else with
/// `$nvshmem`, NVSHMEM's own call.
macro_rules! load_store_signal {
    (
        $scope:ident, $dest:expr, $source:expr, $bytes:expr, $signal:expr, $value:expr, $op:expr,
        $pe:expr, $nvshmem:expr
    ) => {
        paste::paste! {
            crate::peer::put_signal(
                crate::call_scope::Scope::[<$scope:camel>],
                $dest.as_ptr().cast(),
                $source.cast(),
                $bytes,
                $signal.as_ptr(),
                $value,
                $op as i32,
                $pe,
                || $nvshmem,
            )
        }
    };
}

macro_rules! scoped_signals {
    ($scope:ident, $who:literal, $x:literal, $suffix:literal) => {
        paste::paste! {
        /// Copies `count` elements from local `source` to `dest` on PE `pe`, then applies `op` with
        /// `value` to `signal` on PE `pe`
        #[doc = concat!("(`nvshmem", $x, "_<T>_put_signal", $suffix, "`); returns when `source` may be reused.")]
        ///
        /// # Safety
        /// `dest` holds `count` elements on every PE, `signal` is a symmetric `u64`, `source` is
        /// valid for `count` elements, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        #[inline]
        pub unsafe fn put_signal<T: Element>(
            dest: SymmetricPtr<T>,
            source: *const T,
            count: usize,
            signal: SymmetricPtr<u64>,
            value: u64,
            op: SignalOp,
            pe: i32,
        ) {
            crate::checks::check_pe!("put_signal", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store_signal!(
                    $scope, dest, source, count * size_of::<T>(), signal, value, op, pe,
                    (T::RMA.put_signal.$scope)(
                        dest.as_ptr(), source, count, signal.as_ptr(), value, op as i32, pe,
                    )
                )
            }
        }

        /// [`put_signal`] that returns at once
        #[doc = concat!("(`nvshmem", $x, "_<T>_put_signal_nbi", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`put_signal`], and `source` is not touched before the next [`crate::sync::quiet`].
        #[inline]
        pub unsafe fn put_signal_nbi<T: Element>(
            dest: SymmetricPtr<T>,
            source: *const T,
            count: usize,
            signal: SymmetricPtr<u64>,
            value: u64,
            op: SignalOp,
            pe: i32,
        ) {
            crate::checks::check_pe!("put_signal_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store_signal!(
                    $scope, dest, source, count * size_of::<T>(), signal, value, op, pe,
                    (T::RMA.put_signal_nbi.$scope)(
                        dest.as_ptr(), source, count, signal.as_ptr(), value, op as i32, pe,
                    )
                )
            }
        }

        /// [`put_signal`] counted in bytes, for data of any type
        #[doc = concat!("(`nvshmem", $x, "_putmem_signal", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`put_signal`], with `bytes` bytes.
        #[inline]
        pub unsafe fn putmem_signal<T>(
            dest: SymmetricPtr<T>,
            source: *const T,
            bytes: usize,
            signal: SymmetricPtr<u64>,
            value: u64,
            op: SignalOp,
            pe: i32,
        ) {
            crate::checks::check_pe!("putmem_signal", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store_signal!(
                    $scope, dest, source, bytes, signal, value, op, pe,
                    ffi::[<nvshmem $x _putmem_signal $suffix>](
                        dest.as_ptr().cast(), source.cast(), bytes, signal.as_ptr(), value, op as i32, pe,
                    )
                )
            }
        }

        /// [`putmem_signal`] that returns at once
        #[doc = concat!("(`nvshmem", $x, "_putmem_signal_nbi", $suffix, "`).")]
        ///
        /// # Safety
        /// As for [`put_signal_nbi`], with `bytes` bytes.
        #[inline]
        pub unsafe fn putmem_signal_nbi<T>(
            dest: SymmetricPtr<T>,
            source: *const T,
            bytes: usize,
            signal: SymmetricPtr<u64>,
            value: u64,
            op: SignalOp,
            pe: i32,
        ) {
            crate::checks::check_pe!("putmem_signal_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store_signal!(
                    $scope, dest, source, bytes, signal, value, op, pe,
                    ffi::[<nvshmem $x _putmem_signal_nbi $suffix>](
                        dest.as_ptr().cast(), source.cast(), bytes, signal.as_ptr(), value, op as i32, pe,
                    )
                )
            }
        }
        }
    };
}

scoped_signals!(thread, "each calling thread moves its own data", "", "");

/// Warp-cooperative puts with signal (`nvshmemx_*_put_signal*_warp`).
pub mod warp {
    use super::SignalOp;
    use crate::element::Element;
    use crate::ffi;
    use nvshmem_abi::SymmetricPtr;
    scoped_signals!(
        warp,
        "every thread of the warp calls it with the same arguments",
        "x",
        "_warp"
    );
}

/// Block-cooperative puts with signal (`nvshmemx_*_put_signal*_block`).
pub mod block {
    use super::SignalOp;
    use crate::element::Element;
    use crate::ffi;
    use nvshmem_abi::SymmetricPtr;
    scoped_signals!(
        block,
        "every thread of the block calls it with the same arguments",
        "x",
        "_block"
    );
}
