//! The CUDA types that NVSHMEM's host API mentions, as small stand-ins.
//!
//! The bindings deliberately do not include CUDA's own headers: a stream, module or library handle
//! is an opaque pointer here, so it converts to and from the handle types of any CUDA binding
//! (for example cudarc's `CUstream`, `CUmodule`) with a pointer cast. The 16-bit float types are
//! passed by value, so they are defined with CUDA's exact layout (two bytes, aligned to two).
//!
//! ```
//! use nvshmem_sys::cuda::{cudaStream_t, half};
//! let stream: cudaStream_t = std::ptr::null_mut(); // CUDA's default (legacy) stream
//! let one = half { bits: 0x3c00 }; // 1.0 in IEEE 754 binary16
//! assert!(stream.is_null());
//! assert_eq!(std::mem::size_of_val(&one), 2);
//! ```

#![allow(non_camel_case_types)]

use std::ffi::c_void;

/// A CUDA runtime stream (`cudaStream_t`, which is `struct CUstream_st *`); null is the default
/// stream. The same object as the driver API's [`CUstream`].
pub type cudaStream_t = *mut c_void;

/// A CUDA driver API stream (`CUstream`); the same object as [`cudaStream_t`].
pub type CUstream = *mut c_void;

/// A CUDA driver API module handle (`CUmodule`, which is `struct CUmod_st *`), as returned by
/// `cuModuleLoadData`; `nvshmemx_cumodule_init` binds NVSHMEM's device state into one.
pub type CUmodule = *mut c_void;

/// A CUDA driver API library handle (`CUlibrary`, which is `struct CUlib_st *`), as returned by
/// `cuLibraryLoadData`; `nvshmemx_culibrary_init` binds NVSHMEM's device state into one.
pub type CUlibrary = *mut c_void;

/// CUDA's `__half`: an IEEE 754 binary16 number, stored as its bit pattern.
///
/// Same layout as CUDA's (`struct __align__(2) __half { unsigned short __x; }`), so it can be
/// passed by value to the `nvshmemx_half_*` functions.
#[repr(C, align(2))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct __half {
    /// The binary16 bit pattern.
    pub bits: u16,
}

/// CUDA's `half`, a typedef of [`__half`].
pub type half = __half;

/// CUDA's `__nv_bfloat16`: a bfloat16 number, stored as its bit pattern.
///
/// Same layout as CUDA's (`struct __align__(2) __nv_bfloat16 { unsigned short __x; }`), so it can
/// be passed by value to the `nvshmemx_bfloat16_*` functions.
#[repr(C, align(2))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct __nv_bfloat16 {
    /// The bfloat16 bit pattern (the upper half of an `f32`'s).
    pub bits: u16,
}
