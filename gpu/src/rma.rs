//! Remote memory access: typed `put`, `get`, `p`, `g` and their non-blocking forms
//! (NVSHMEM: "Remote memory access routines" and "Non-blocking remote memory access routines").
//!
//! The functions at this module's top level are NVSHMEM's thread-scope calls: each calling thread
//! moves its own data. [`warp`] and [`block`] hold the cooperative forms (`nvshmemx_*_warp`,
//! `nvshmemx_*_block`): every thread of the warp or block calls them with the same arguments and the
//! threads share the transfer.
//!
//! A blocking `put` returns once the source may be reused; the data is delivered by the next
//! [`crate::sync::quiet`] or barrier. A `_nbi` call returns at once; source and destination may only
//! be touched after `quiet`. A `get` returns once the data is in `dest`; `get_nbi` after `quiet`.
//!
//! ```ignore
//! use nvshmem_gpu::{rma, sync, SymmetricPtr};
//! # unsafe fn example(halo: SymmetricPtr<f32>, row: *const f32, n: usize, up: i32) {
//! // SAFETY: `halo` holds `n` elements on every PE, `row` holds `n` local elements, `up` is a PE.
//! unsafe { rma::block::put_nbi(halo, row, n, up) };
//! // SAFETY: no conditions beyond the module having been initialised.
//! unsafe { sync::quiet() };
//! # }
//! ```

use crate::{Element, SymmetricPtr};

/// NVSHMEM's transfer function shape: `(dest, source, nelems, pe)`.
type TransferFn<T> = unsafe extern "C" fn(*mut T, *const T, usize, i32);

/// One scope's typed transfer functions for one element type.
#[doc(hidden)]
pub struct ScopedRmaOps<T> {
    pub put: TransferFn<T>,
    pub put_nbi: TransferFn<T>,
    pub get: TransferFn<T>,
    pub get_nbi: TransferFn<T>,
}

/// All typed RMA functions for one element type; filled in from the table in `element.rs`.
#[doc(hidden)]
pub struct RmaOps<T> {
    pub p: unsafe extern "C" fn(*mut T, T, i32),
    pub g: unsafe extern "C" fn(*const T, i32) -> T,
    pub thread: ScopedRmaOps<T>,
    pub warp: ScopedRmaOps<T>,
    pub block: ScopedRmaOps<T>,
}

/// Writes `value` to `dest` on PE `pe` (`nvshmem_<T>_p`): the cheapest remote store of one element.
///
/// # Safety
/// `dest` is valid for one `T` on every PE and `pe` is in `0..n_pes()`. Delivery is complete after
/// [`crate::sync::quiet`] or a barrier.
#[inline]
pub unsafe fn p<T: Element>(dest: SymmetricPtr<T>, value: T, pe: i32) {
    // SAFETY: the caller upholds NVSHMEM's contract for `nvshmem_<T>_p`, restated above.
    unsafe { (T::RMA.p)(dest.as_ptr(), value, pe) }
}

/// Reads one element from `source` on PE `pe` (`nvshmem_<T>_g`).
///
/// # Safety
/// `source` is valid for one `T` on every PE and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn g<T: Element>(source: SymmetricPtr<T>, pe: i32) -> T {
    // SAFETY: the caller upholds NVSHMEM's contract for `nvshmem_<T>_g`, restated above.
    unsafe { (T::RMA.g)(source.as_ptr(), pe) }
}

/// Generates `put`, `put_nbi`, `get`, `get_nbi` for one scope of [`RmaOps`].
macro_rules! scoped_transfers {
    ($scope:ident, $who:literal, $c_suffix:literal) => {
        /// Copies `count` elements from local `source` to `dest` on PE `pe`
        #[doc = concat!("(`nvshmem", $c_suffix, "`); returns when `source` may be reused.")]
        ///
        /// # Safety
        /// `dest` holds `count` elements on every PE, `source` is valid device memory for `count`
        /// elements, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        #[inline]
        pub unsafe fn put<T: Element>(dest: SymmetricPtr<T>, source: *const T, count: usize, pe: i32) {
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.$scope.put)(dest.as_ptr(), source, count, pe) }
        }

        /// Starts copying `count` elements from local `source` to `dest` on PE `pe` and returns at
        #[doc = concat!("once (`nvshmem", $c_suffix, "` with `_nbi`).")]
        ///
        /// # Safety
        /// As for `put`, and neither buffer is touched before the next [`crate::sync::quiet`].
        #[inline]
        pub unsafe fn put_nbi<T: Element>(dest: SymmetricPtr<T>, source: *const T, count: usize, pe: i32) {
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.$scope.put_nbi)(dest.as_ptr(), source, count, pe) }
        }

        /// Copies `count` elements from `source` on PE `pe` into local `dest`
        #[doc = concat!("(`nvshmem", $c_suffix, "`, get form); returns when the data is in `dest`.")]
        ///
        /// # Safety
        /// `source` holds `count` elements on every PE, `dest` is valid device memory for `count`
        /// elements, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        #[inline]
        pub unsafe fn get<T: Element>(dest: *mut T, source: SymmetricPtr<T>, count: usize, pe: i32) {
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.$scope.get)(dest, source.as_ptr(), count, pe) }
        }

        /// Starts copying `count` elements from `source` on PE `pe` into local `dest` and returns at
        /// once; the data is there after the next [`crate::sync::quiet`].
        ///
        /// # Safety
        /// As for `get`, and `dest` is not read before the next [`crate::sync::quiet`].
        #[inline]
        pub unsafe fn get_nbi<T: Element>(dest: *mut T, source: SymmetricPtr<T>, count: usize, pe: i32) {
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.$scope.get_nbi)(dest, source.as_ptr(), count, pe) }
        }
    };
}

scoped_transfers!(thread, "each calling thread moves its own data", "_<T>_put");

/// Warp-cooperative transfers (`nvshmemx_<T>_{put,get}[_nbi]_warp`).
pub mod warp {
    use crate::{Element, SymmetricPtr};
    scoped_transfers!(
        warp,
        "every thread of the warp calls it with the same arguments (they share the transfer)",
        "x_<T>_put_warp"
    );
}

/// Block-cooperative transfers (`nvshmemx_<T>_{put,get}[_nbi]_block`).
pub mod block {
    use crate::{Element, SymmetricPtr};
    scoped_transfers!(
        block,
        "every thread of the block calls it with the same arguments (they share the transfer)",
        "x_<T>_put_block"
    );
}
