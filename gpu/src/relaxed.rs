//! Relaxed atomic access to one element: how the safe layer reads and writes memory that other
//! threads, other PEs or NVSHMEM may access at the same time.
//!
//! By Rust's rules two accesses to the same memory from different threads, at least one a write and
//! not both atomic, are a data race, which is undefined behaviour; a volatile access is no
//! exception. Atomic accesses never race. So every element access of the safe layer that may meet
//! another thread's (a [`SymmetricSlice`](crate::SymmetricSlice) read or write, an element another
//! block or PE may be writing) is an atomic access with `Ordering::Relaxed`: it reads an old or a
//! new value, never a torn one, and orders nothing else. Writes that other PEs and NVSHMEM make
//! into this PE's symmetric memory are, in the PTX memory model NVSHMEM documents its ordering in,
//! system-scope accesses from another agent; a relaxed access here is system scope too (Rust's
//! atomics have no narrower scope), so the two are atomic with respect to each other.
//!
//! [`RelaxedAccess`] maps each element type to the atomic type of its width: the integers to their
//! own (`u32` to `AtomicU32`), `f32` and `f64` through their bits (`AtomicU32`, `AtomicU64`). It is
//! sealed: the element types implement it, nothing else can.
//!
//! In PTX a relaxed atomic load or store of up to 64 bits is an `ld.relaxed.sys` or `st.relaxed.sys`,
//! what the PTX ISA says a volatile access is on `sm_70` and later: the access costs what a volatile
//! one did.

use core::sync::atomic::Ordering::Relaxed;
use core::sync::atomic::{
    AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16, AtomicU32,
    AtomicU64, AtomicUsize,
};

mod sealed {
    pub trait Sealed {}
}

/// An element type read and written as a relaxed atomic of its width (see the module
/// documentation). Implemented for every [`Element`](crate::Element) type.
pub trait RelaxedAccess: Copy + sealed::Sealed {
    /// Reads the element at `address` with a relaxed atomic load.
    ///
    /// # Safety
    /// `address` is valid for reads of `Self` and aligned to `align_of::<Self>()`, and every
    /// access that may race with this one is atomic.
    #[doc(hidden)]
    unsafe fn load_relaxed(address: *mut Self) -> Self;

    /// Writes `value` to `address` with a relaxed atomic store.
    ///
    /// # Safety
    /// As for [`load_relaxed`](Self::load_relaxed), for writes.
    #[doc(hidden)]
    unsafe fn store_relaxed(address: *mut Self, value: Self);
}

/// Implements [`RelaxedAccess`] for types whose atomic type is `$atomic`, through `$bits` (the
/// type itself for integers, its bits for floats).
macro_rules! relaxed_access {
    ($($t:ty => $atomic:ident, $bits:ty, $from:expr, $to:expr;)*) => { $(
        impl sealed::Sealed for $t {}
        impl RelaxedAccess for $t {
            #[inline(always)]
            unsafe fn load_relaxed(address: *mut Self) -> Self {
                const { assert!(align_of::<$t>() == align_of::<$atomic>()) };
                // SAFETY: the caller's contract; `$t` and `$atomic` have the same size and (checked
                // above) alignment, and every bit pattern is a value of both.
                let bits = unsafe { $atomic::from_ptr(address.cast::<$bits>()) }.load(Relaxed);
                $from(bits)
            }

            #[inline(always)]
            unsafe fn store_relaxed(address: *mut Self, value: Self) {
                // SAFETY: as for `load_relaxed`.
                unsafe { $atomic::from_ptr(address.cast::<$bits>()) }.store($to(value), Relaxed)
            }
        }
    )* };
}

relaxed_access! {
    u8 => AtomicU8, u8, core::convert::identity, core::convert::identity;
    u16 => AtomicU16, u16, core::convert::identity, core::convert::identity;
    u32 => AtomicU32, u32, core::convert::identity, core::convert::identity;
    u64 => AtomicU64, u64, core::convert::identity, core::convert::identity;
    usize => AtomicUsize, usize, core::convert::identity, core::convert::identity;
    i8 => AtomicI8, i8, core::convert::identity, core::convert::identity;
    i16 => AtomicI16, i16, core::convert::identity, core::convert::identity;
    i32 => AtomicI32, i32, core::convert::identity, core::convert::identity;
    i64 => AtomicI64, i64, core::convert::identity, core::convert::identity;
    isize => AtomicIsize, isize, core::convert::identity, core::convert::identity;
    f32 => AtomicU32, u32, f32::from_bits, f32::to_bits;
    f64 => AtomicU64, u64, f64::from_bits, f64::to_bits;
}

/// An integer element type with relaxed atomic read-modify-writes on this PE's memory (the
/// `local_*` methods of [`SymmetricSlice`](crate::SymmetricSlice)): `i32`, `i64`, `u32`, `u64`,
/// `isize`, `usize`.
pub trait LocalAtomic: RelaxedAccess {
    /// Adds `value` (wrapping) to the element at `address` and returns the value before.
    ///
    /// # Safety
    /// As for [`RelaxedAccess::load_relaxed`], for reads and writes.
    #[doc(hidden)]
    unsafe fn fetch_add_relaxed(address: *mut Self, value: Self) -> Self;

    /// Writes `value` to the element at `address` and returns the value before.
    ///
    /// # Safety
    /// As for [`fetch_add_relaxed`](Self::fetch_add_relaxed).
    #[doc(hidden)]
    unsafe fn swap_relaxed(address: *mut Self, value: Self) -> Self;

    /// Writes `value` to the element at `address` if it holds `expected`, and returns the value
    /// before either way.
    ///
    /// # Safety
    /// As for [`fetch_add_relaxed`](Self::fetch_add_relaxed).
    #[doc(hidden)]
    unsafe fn compare_swap_relaxed(address: *mut Self, expected: Self, value: Self) -> Self;
}

/// Implements [`LocalAtomic`] for integer types through their atomic types.
macro_rules! local_atomic {
    ($($t:ty => $atomic:ident;)*) => { $(
        impl LocalAtomic for $t {
            #[inline(always)]
            unsafe fn fetch_add_relaxed(address: *mut Self, value: Self) -> Self {
                // SAFETY: the caller's contract; `RelaxedAccess` checked the layouts.
                unsafe { $atomic::from_ptr(address) }.fetch_add(value, Relaxed)
            }

            #[inline(always)]
            unsafe fn swap_relaxed(address: *mut Self, value: Self) -> Self {
                // SAFETY: as for `fetch_add_relaxed`.
                unsafe { $atomic::from_ptr(address) }.swap(value, Relaxed)
            }

            #[inline(always)]
            unsafe fn compare_swap_relaxed(address: *mut Self, expected: Self, value: Self) -> Self {
                // SAFETY: as for `fetch_add_relaxed`.
                let atomic = unsafe { $atomic::from_ptr(address) };
                match atomic.compare_exchange(expected, value, Relaxed, Relaxed) {
                    Ok(before) | Err(before) => before,
                }
            }
        }
    )* };
}

local_atomic! {
    u32 => AtomicU32;
    u64 => AtomicU64;
    usize => AtomicUsize;
    i32 => AtomicI32;
    i64 => AtomicI64;
    isize => AtomicIsize;
}

/// Reads the 16 bytes at `address` as two relaxed atomic 64-bit loads, in one vector load on the
/// GPU (`ld.relaxed.sys.v2.b64`).
///
/// PTX performs a vector access as one access per component, in no order among them, each at the
/// given semantics and scope. So the load is two relaxed atomic 64-bit loads; any value it returns
/// is one that element-sized relaxed loads of the same bytes could return (a 64-bit atomic is
/// stronger than several narrower ones), so, to Rust, it is `16 / size_of::<T>()` relaxed loads of
/// the elements there: no data race with the safe layer's element-sized atomics.
///
/// Rust has no 128-bit atomic on this target, so the load is inline assembly, which lies outside
/// Rust's abstract machine, as NVSHMEM's device code does; what it is comes from the PTX memory
/// model the kernel runs under. There an `ld.relaxed.sys` is a strong operation, and two strong
/// accesses of system scope to the same bytes (this load and a Rust relaxed atomic, which LLVM
/// emits as `ld`/`st.relaxed.sys` too, or another PE's or NVSHMEM's system-scope write) are
/// morally strong: they do not race, and each component reads one whole write's value.
///
/// # Safety
/// `address` is valid for reads of 16 bytes, 16-byte aligned, and every access that may race with
/// this one is atomic.
#[inline(always)]
pub(crate) unsafe fn load_16_relaxed(address: *mut u8) -> [u64; 2] {
    #[cfg(target_arch = "nvptx64")]
    {
        let (low, high): (u64, u64);
        // SAFETY: the caller's contract; the asm only reads those 16 bytes.
        unsafe {
            core::arch::asm!(
                "ld.relaxed.sys.v2.b64 {{{low}, {high}}}, [{address}];",
                low = out(reg64) low,
                high = out(reg64) high,
                address = in(reg64) address,
                options(nostack, readonly),
            )
        };
        [low, high]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let words = address.cast::<u64>();
        // SAFETY: the caller's contract; two aligned `u64`s.
        unsafe { [u64::load_relaxed(words), u64::load_relaxed(words.add(1))] }
    }
}

/// Writes `words` to the 16 bytes at `address` as two relaxed atomic 64-bit stores, in one vector
/// store on the GPU (`st.relaxed.sys.v2.b64`); see [`load_16_relaxed`] for why that is atomic
/// element by element.
///
/// # Safety
/// As for [`load_16_relaxed`], for writes.
#[inline(always)]
pub(crate) unsafe fn store_16_relaxed(address: *mut u8, words: [u64; 2]) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the caller's contract; the asm writes only those 16 bytes.
    unsafe {
        core::arch::asm!(
            "st.relaxed.sys.v2.b64 [{address}], {{{low}, {high}}};",
            address = in(reg64) address,
            low = in(reg64) words[0],
            high = in(reg64) words[1],
            options(nostack),
        )
    };
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let at = address.cast::<u64>();
        // SAFETY: the caller's contract; two aligned `u64`s.
        unsafe {
            u64::store_relaxed(at, words[0]);
            u64::store_relaxed(at.add(1), words[1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LocalAtomic, RelaxedAccess};

    #[test]
    fn floats_go_through_their_bits_unchanged() {
        let mut cell = [0.0f64];
        for value in [
            1.5,
            -0.0,
            f64::INFINITY,
            f64::from_bits(0x7ff8_dead_beef_0001),
        ] {
            // SAFETY: `cell` is a live, aligned f64 that nothing else touches.
            unsafe { f64::store_relaxed(cell.as_mut_ptr(), value) };
            // SAFETY: as above.
            let back = unsafe { f64::load_relaxed(cell.as_mut_ptr()) };
            assert_eq!(back.to_bits(), value.to_bits());
        }
    }

    #[test]
    fn narrow_integers_touch_only_their_own_bytes() {
        let mut words = [0u16; 3];
        // SAFETY: in bounds and aligned; nothing else touches `words`.
        unsafe { u16::store_relaxed(words.as_mut_ptr().add(1), 0xBEEF) };
        assert_eq!(words, [0, 0xBEEF, 0]);
        // SAFETY: as above.
        let back = unsafe { u16::load_relaxed(words.as_mut_ptr().add(1)) };
        assert_eq!(back, 0xBEEF);
    }

    #[test]
    fn read_modify_writes_return_the_value_before() {
        let mut cell = [u32::MAX];
        let at = cell.as_mut_ptr();
        // SAFETY: `cell` is a live, aligned u32 that nothing else touches.
        unsafe {
            assert_eq!(u32::fetch_add_relaxed(at, 2), u32::MAX);
            assert_eq!(u32::swap_relaxed(at, 7), 1);
            assert_eq!(u32::compare_swap_relaxed(at, 6, 9), 7);
            assert_eq!(u32::compare_swap_relaxed(at, 7, 9), 7);
        }
        assert_eq!(cell, [9]);
    }
}
