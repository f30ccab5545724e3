//! Remote memory access: typed `put`, `get`, `p`, `g`, strided `iput`/`iget`, their non-blocking
//! forms, the byte forms (`putmem`, `getmem`), and direct pointers to peers' memory
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
//! ```no_run
//! use nvshmem_gpu::{rma, sync, SymmetricPtr};
//! # unsafe fn example(halo: SymmetricPtr<f32>, row: *const f32, n: usize, up: i32) {
//! // SAFETY: `halo` holds `n` elements on every PE, `row` holds `n` local elements, `up` is a PE.
//! unsafe { rma::block::put_nbi(halo, row, n, up) };
//! sync::quiet();
//! # }
//! ```

use crate::element::Element;
use crate::ffi;
use crate::team::Team;
use core::ffi::c_void;
use core::ptr::NonNull;
use nvshmem_abi::SymmetricPtr;

/// Writes `value` to `dest` on PE `pe` (`nvshmem_<T>_p`): the cheapest remote store of one element.
///
/// # Safety
/// `dest` is valid for one `T` on every PE and `pe` is in `0..n_pes()`. Delivery is complete after
/// [`crate::sync::quiet`] or a barrier.
#[inline]
pub unsafe fn p<T: Element>(dest: SymmetricPtr<T>, value: T, pe: i32) {
    crate::checks::check_pe!("p", pe);
    // SAFETY: the caller upholds NVSHMEM's contract for `nvshmem_<T>_p`, restated above.
    unsafe { (T::RMA.p)(dest.as_ptr(), value, pe) }
}

/// Reads one element from `source` on PE `pe` (`nvshmem_<T>_g`).
///
/// # Safety
/// `source` is valid for one `T` on every PE and `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn g<T: Element>(source: SymmetricPtr<T>, pe: i32) -> T {
    crate::checks::check_pe!("g", pe);
    // SAFETY: the caller upholds NVSHMEM's contract for `nvshmem_<T>_g`, restated above.
    unsafe { (T::RMA.g)(source.as_ptr(), pe) }
}

/// The local address of `ptr` on PE `pe`, if this thread can load from and store to it directly
/// (`nvshmem_ptr`): `Some` for peers reached over NVLink or PCIe peer access (and for this PE),
/// `None` for peers behind a network transport.
///
/// Loads and stores through the pointer bypass NVSHMEM's ordering: order them with the usual
/// memory fences or NVSHMEM's barriers.
///
/// # Safety
/// `pe` is in `0..n_pes()`.
#[inline]
pub unsafe fn ptr<T>(ptr: SymmetricPtr<T>, pe: i32) -> Option<NonNull<T>> {
    crate::checks::check_pe!("ptr", pe);
    // SAFETY: `ptr` is a symmetric address (its type says so) and `pe` a valid PE (caller).
    NonNull::new(unsafe { ffi::nvshmem_ptr(ptr.as_ptr().cast_const().cast(), pe) }.cast())
}

/// The multicast address of `ptr` for `team` (`nvshmemx_mc_ptr`), if NVLink SHARP multicast is set
/// up for the team; stores through it reach every PE of the team. `None` otherwise (always with
/// `NVSHMEM_DISABLE_NVLS=1`).
///
/// # Safety
/// This PE is a member of `team`.
#[inline]
pub unsafe fn mc_ptr<T>(team: Team, ptr: SymmetricPtr<T>) -> Option<NonNull<T>> {
    // SAFETY: `team` is a valid team this PE belongs to (caller), `ptr` a symmetric address.
    NonNull::new(
        unsafe { ffi::nvshmemx_mc_ptr(team.raw(), ptr.as_ptr().cast_const().cast()) }.cast(),
    )
}

/// Moves `$bytes` bytes `$way` (`Put`: local to symmetric; `Get`: symmetric to local) at scope
/// `$scope` (`thread`, `warp` or `block`) through [`crate::peer::transfer`]: over loads and stores
/// where the peer is mapped, else with `$nvshmem`, NVSHMEM's own call.
macro_rules! load_store {
    ($scope:ident, $way:ident, $symmetric:expr, $local:expr, $bytes:expr, $pe:expr, $nvshmem:expr) => {
        paste::paste! {
            crate::peer::transfer(
                crate::call_scope::Scope::[<$scope:camel>],
                crate::peer::Way::$way,
                $symmetric.cast(),
                $local as *mut c_void,
                $bytes,
                $pe,
                || $nvshmem,
            )
        }
    };
}

/// Generates the typed and byte transfers for one scope.
macro_rules! scoped_transfers {
    ($scope:ident, $who:literal, $x:literal, $suffix:literal) => {
        paste::paste! {
        /// Copies `count` elements from local `source` to `dest` on PE `pe`
        #[doc = concat!("(`nvshmem", $x, "_<T>_put", $suffix, "`); returns when `source` may be reused.")]
        ///
        /// # Safety
        /// `dest` holds `count` elements on every PE, `source` is valid device memory for `count`
        /// elements, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        #[inline]
        pub unsafe fn put<T: Element>(dest: SymmetricPtr<T>, source: *const T, count: usize, pe: i32) {
            crate::checks::check_pe!("put", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Put, dest.as_ptr(), source, count * size_of::<T>(), pe,
                    (T::RMA.put.$scope)(dest.as_ptr(), source, count, pe)
                )
            }
        }

        /// Starts copying `count` elements from local `source` to `dest` on PE `pe` and returns at
        #[doc = concat!("once (`nvshmem", $x, "_<T>_put_nbi", $suffix, "`).")]
        ///
        /// # Safety
        /// As for `put`, and neither buffer is touched before the next [`crate::sync::quiet`].
        #[inline]
        pub unsafe fn put_nbi<T: Element>(dest: SymmetricPtr<T>, source: *const T, count: usize, pe: i32) {
            crate::checks::check_pe!("put_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Put, dest.as_ptr(), source, count * size_of::<T>(), pe,
                    (T::RMA.put_nbi.$scope)(dest.as_ptr(), source, count, pe)
                )
            }
        }

        /// Copies `count` elements from `source` on PE `pe` into local `dest`
        #[doc = concat!("(`nvshmem", $x, "_<T>_get", $suffix, "`); returns when the data is in `dest`.")]
        ///
        /// # Safety
        /// `source` holds `count` elements on every PE, `dest` is valid device memory for `count`
        /// elements, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        #[inline]
        pub unsafe fn get<T: Element>(dest: *mut T, source: SymmetricPtr<T>, count: usize, pe: i32) {
            crate::checks::check_pe!("get", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Get, source.as_ptr(), dest, count * size_of::<T>(), pe,
                    (T::RMA.get.$scope)(dest, source.as_ptr(), count, pe)
                )
            }
        }

        /// Starts copying `count` elements from `source` on PE `pe` into local `dest` and returns at
        #[doc = concat!("once (`nvshmem", $x, "_<T>_get_nbi", $suffix, "`); the data is there after the next")]
        /// [`crate::sync::quiet`].
        ///
        /// # Safety
        /// As for `get`, and `dest` is not read before the next [`crate::sync::quiet`].
        #[inline]
        pub unsafe fn get_nbi<T: Element>(dest: *mut T, source: SymmetricPtr<T>, count: usize, pe: i32) {
            crate::checks::check_pe!("get_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Get, source.as_ptr(), dest, count * size_of::<T>(), pe,
                    (T::RMA.get_nbi.$scope)(dest, source.as_ptr(), count, pe)
                )
            }
        }

        /// Strided put: element `i` of local `source`, at `source_stride * i`, goes to
        #[doc = concat!("`dest_stride * i` of `dest` on PE `pe`, for `i` in `0..count` (`nvshmem", $x, "_<T>_iput", $suffix, "`).")]
        /// Strides count elements.
        ///
        /// # Safety
        /// `dest` holds `dest_stride * (count - 1) + 1` elements on every PE, `source` is valid for
        /// `source_stride * (count - 1) + 1`, both strides are ≥ 1, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        /// The warp and block forms work only for peers reachable by [`ptr`] (NVSHMEM asserts
        /// otherwise).
        #[inline]
        pub unsafe fn iput<T: Element>(
            dest: SymmetricPtr<T>,
            source: *const T,
            dest_stride: isize,
            source_stride: isize,
            count: usize,
            pe: i32,
        ) {
            crate::checks::check_pe!("iput", pe);
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.iput.$scope)(dest.as_ptr(), source, dest_stride, source_stride, count, pe) }
        }

        /// Strided get: element `source_stride * i` of `source` on PE `pe` goes to
        #[doc = concat!("`dest_stride * i` of local `dest`, for `i` in `0..count` (`nvshmem", $x, "_<T>_iget", $suffix, "`).")]
        ///
        /// # Safety
        /// `source` holds `source_stride * (count - 1) + 1` elements on every PE, `dest` is valid for
        /// `dest_stride * (count - 1) + 1`, both strides are ≥ 1, `pe` is in `0..n_pes()`, and
        #[doc = concat!($who, ".")]
        /// The warp and block forms work only for peers reachable by [`ptr`].
        #[inline]
        pub unsafe fn iget<T: Element>(
            dest: *mut T,
            source: SymmetricPtr<T>,
            dest_stride: isize,
            source_stride: isize,
            count: usize,
            pe: i32,
        ) {
            crate::checks::check_pe!("iget", pe);
            // SAFETY: the caller upholds the contract restated above.
            unsafe { (T::RMA.iget.$scope)(dest, source.as_ptr(), dest_stride, source_stride, count, pe) }
        }

        /// Copies `bytes` bytes from local `source` to `dest` on PE `pe`
        #[doc = concat!("(`nvshmem", $x, "_putmem", $suffix, "`); for data of any type.")]
        ///
        /// # Safety
        /// As for `put`, counted in bytes.
        #[inline]
        pub unsafe fn putmem<T>(dest: SymmetricPtr<T>, source: *const T, bytes: usize, pe: i32) {
            crate::checks::check_pe!("putmem", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Put, dest.as_ptr(), source, bytes, pe,
                    ffi::[<nvshmem $x _putmem $suffix>](dest.as_ptr().cast(), source.cast::<c_void>(), bytes, pe)
                )
            }
        }

        /// Starts copying `bytes` bytes from local `source` to `dest` on PE `pe`
        #[doc = concat!("(`nvshmem", $x, "_putmem_nbi", $suffix, "`).")]
        ///
        /// # Safety
        /// As for `put_nbi`, counted in bytes.
        #[inline]
        pub unsafe fn putmem_nbi<T>(dest: SymmetricPtr<T>, source: *const T, bytes: usize, pe: i32) {
            crate::checks::check_pe!("putmem_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Put, dest.as_ptr(), source, bytes, pe,
                    ffi::[<nvshmem $x _putmem_nbi $suffix>](dest.as_ptr().cast(), source.cast::<c_void>(), bytes, pe)
                )
            }
        }

        /// Copies `bytes` bytes from `source` on PE `pe` into local `dest`
        #[doc = concat!("(`nvshmem", $x, "_getmem", $suffix, "`).")]
        ///
        /// # Safety
        /// As for `get`, counted in bytes.
        #[inline]
        pub unsafe fn getmem<T>(dest: *mut T, source: SymmetricPtr<T>, bytes: usize, pe: i32) {
            crate::checks::check_pe!("getmem", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Get, source.as_ptr(), dest, bytes, pe,
                    ffi::[<nvshmem $x _getmem $suffix>](dest.cast(), source.as_ptr().cast_const().cast(), bytes, pe)
                )
            }
        }

        /// Starts copying `bytes` bytes from `source` on PE `pe` into local `dest`
        #[doc = concat!("(`nvshmem", $x, "_getmem_nbi", $suffix, "`).")]
        ///
        /// # Safety
        /// As for `get_nbi`, counted in bytes.
        #[inline]
        pub unsafe fn getmem_nbi<T>(dest: *mut T, source: SymmetricPtr<T>, bytes: usize, pe: i32) {
            crate::checks::check_pe!("getmem_nbi", pe);
            // SAFETY: the caller upholds the contract restated above; the peer path needs nothing
            // more.
            unsafe {
                load_store!(
                    $scope, Get, source.as_ptr(), dest, bytes, pe,
                    ffi::[<nvshmem $x _getmem_nbi $suffix>](dest.cast(), source.as_ptr().cast_const().cast(), bytes, pe)
                )
            }
        }
        }
    };
}
pub(crate) use scoped_transfers;

scoped_transfers!(thread, "each calling thread moves its own data", "", "");

/// Warp-cooperative transfers (`nvshmemx_*_warp`).
pub mod warp {
    #[allow(unused_imports)]
    use super::ptr;
    use crate::element::Element;
    use crate::ffi;
    use core::ffi::c_void;
    use nvshmem_abi::SymmetricPtr;
    super::scoped_transfers!(
        warp,
        "every thread of the warp calls it with the same arguments (they share the transfer)",
        "x",
        "_warp"
    );
}

/// Block-cooperative transfers (`nvshmemx_*_block`).
pub mod block {
    #[allow(unused_imports)]
    use super::ptr;
    use crate::element::Element;
    use crate::ffi;
    use core::ffi::c_void;
    use nvshmem_abi::SymmetricPtr;
    super::scoped_transfers!(
        block,
        "every thread of the block calls it with the same arguments (they share the transfer)",
        "x",
        "_block"
    );
}
