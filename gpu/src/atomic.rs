//! Remote atomic memory operations on symmetric variables (NVSHMEM: "Atomic memory operations").
//!
//! Each call acts atomically on one `T` at `dest` on PE `pe`, with respect to other NVSHMEM atomics
//! on the same variable (not to plain loads and stores, nor to atomics of another type). The type
//! decides which operations exist, as in NVSHMEM:
//!
//! | operations | types (trait) |
//! |---|---|
//! | [`fetch`], [`set`], [`swap`] | `f32`, `f64`, `i32`, `i64`, `u32`, `u64`, `isize`, `usize` ([`AtomicElement`]) |
//! | [`compare_swap`] | `i32`, `i64`, `u32`, `u64`, `isize`, `usize` ([`AtomicCompareSwap`]) |
//! | [`fetch_add`], [`add`] | `i32`, `i64`, `u32`, `u64`, `usize`; `f32`, `f64` from NVSHMEM 3.7 ([`AtomicAdd`]) |
//! | [`fetch_inc`], [`inc`] | `i32`, `i64`, `u32`, `u64`, `usize` ([`AtomicInteger`]) |
//! | [`fetch_and`], [`fetch_or`], [`fetch_xor`], [`and`], [`or`], [`xor`] | `i32`, `i64`, `u32`, `u64` ([`AtomicBitwise`]) |
//!
//! Asking for an operation a type lacks is a compile error:
//!
//! ```
//! # unsafe fn f(mask: nvshmem_gpu::SymmetricPtr<u32>) {
//! unsafe { nvshmem_gpu::atomic::fetch_or(mask, 1u32, 0) };
//! # }
//! ```
//!
//! ```compile_fail,E0277
//! # unsafe fn f(mask: nvshmem_gpu::SymmetricPtr<u8>) {
//! unsafe { nvshmem_gpu::atomic::fetch_or(mask, 1u8, 0) };
//! # }
//! ```
//!
//! The non-fetching forms (`set`, `add`, `inc`, `and`, …) complete like puts: after
//! [`crate::sync::quiet`] or a barrier. Only the thread scope exists.
//!
//! ```no_run
//! # unsafe fn example(counter: nvshmem_gpu::SymmetricPtr<u64>) {
//! // SAFETY: `counter` is a symmetric u64 and PE 0 exists.
//! let ticket = unsafe { nvshmem_gpu::atomic::fetch_add(counter, 1, 0) };
//! # }
//! ```

use crate::element::{AtomicAdd, AtomicBitwise, AtomicCompareSwap, AtomicElement, AtomicInteger};
use nvshmem_abi::SymmetricPtr;

/// Reads `source` on PE `pe` atomically (`nvshmem_<T>_atomic_fetch`).
///
/// # Safety
/// `source` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn fetch<T: AtomicElement>(source: SymmetricPtr<T>, pe: i32) -> T {
    crate::checks::check_pe!("fetch", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::ATOMIC.fetch)(source.as_ptr(), pe) }
}

/// Writes `value` to `dest` on PE `pe` atomically (`nvshmem_<T>_atomic_set`).
///
/// # Safety
/// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn set<T: AtomicElement>(dest: SymmetricPtr<T>, value: T, pe: i32) {
    crate::checks::check_pe!("set", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::ATOMIC.set)(dest.as_ptr(), value, pe) }
}

/// Writes `value` to `dest` on PE `pe` and returns the old value (`nvshmem_<T>_atomic_swap`).
///
/// # Safety
/// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn swap<T: AtomicElement>(dest: SymmetricPtr<T>, value: T, pe: i32) -> T {
    crate::checks::check_pe!("swap", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::ATOMIC.swap)(dest.as_ptr(), value, pe) }
}

/// Writes `value` to `dest` on PE `pe` if it equals `expected`; returns the old value either way
/// (`nvshmem_<T>_atomic_compare_swap`).
///
/// # Safety
/// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn compare_swap<T: AtomicCompareSwap>(
    dest: SymmetricPtr<T>,
    expected: T,
    value: T,
    pe: i32,
) -> T {
    crate::checks::check_pe!("compare_swap", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::COMPARE_SWAP.compare_swap)(dest.as_ptr(), expected, value, pe) }
}

/// Generates the non-fetching and fetching forms of an operation with an operand.
macro_rules! operand_ops {
    ($($bound:ident . $table:ident : $fetch:ident, $plain:ident, $what:literal;)*) => { $(
        #[doc = concat!("Applies ", $what, " `value` to `dest` on PE `pe` and returns the old value")]
        #[doc = concat!("(`nvshmem_<T>_atomic_", stringify!($fetch), "`).")]
        ///
        /// # Safety
        /// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
        #[inline]
        pub unsafe fn $fetch<T: $bound>(dest: SymmetricPtr<T>, value: T, pe: i32) -> T {
            crate::checks::check_pe!(stringify!($fetch), pe);
            // SAFETY: the caller's contract above.
            unsafe { (T::$table.$fetch)(dest.as_ptr(), value, pe) }
        }

        #[doc = concat!("Applies ", $what, " `value` to `dest` on PE `pe`")]
        #[doc = concat!("(`nvshmem_<T>_atomic_", stringify!($plain), "`); complete after [`crate::sync::quiet`].")]
        ///
        /// # Safety
        /// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
        #[inline]
        pub unsafe fn $plain<T: $bound>(dest: SymmetricPtr<T>, value: T, pe: i32) {
            crate::checks::check_pe!(stringify!($plain), pe);
            // SAFETY: the caller's contract above.
            unsafe { (T::$table.$plain)(dest.as_ptr(), value, pe) }
        }
    )* };
}

operand_ops! {
    AtomicAdd.ADD: fetch_add, add, "`+`";
    AtomicBitwise.BITWISE: fetch_and, and, "bitwise and with";
    AtomicBitwise.BITWISE: fetch_or, or, "bitwise or with";
    AtomicBitwise.BITWISE: fetch_xor, xor, "bitwise xor with";
}

/// Adds one to `dest` on PE `pe` and returns the old value (`nvshmem_<T>_atomic_fetch_inc`).
///
/// # Safety
/// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn fetch_inc<T: AtomicInteger>(dest: SymmetricPtr<T>, pe: i32) -> T {
    crate::checks::check_pe!("fetch_inc", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::ARITHMETIC.fetch_inc)(dest.as_ptr(), pe) }
}

/// Adds one to `dest` on PE `pe` (`nvshmem_<T>_atomic_inc`); complete after
/// [`crate::sync::quiet`].
///
/// # Safety
/// `dest` is a symmetric `T` and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn inc<T: AtomicInteger>(dest: SymmetricPtr<T>, pe: i32) {
    crate::checks::check_pe!("inc", pe);
    // SAFETY: the caller's contract above.
    unsafe { (T::ARITHMETIC.inc)(dest.as_ptr(), pe) }
}
