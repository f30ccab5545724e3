//! Which PE this is and how many there are (NVSHMEM: "Library setup, exit, and query routines").

use crate::ffi;

/// This PE's number, `0..n_pes()` (`nvshmem_my_pe`).
///
/// ```ignore
/// let next = (nvshmem_gpu::pe::my_pe() + 1) % nvshmem_gpu::pe::n_pes();
/// ```
#[inline]
pub fn my_pe() -> i32 {
    // SAFETY: `nvshmem_my_pe` reads the device state that `nvshmemx_cumodule_init` set up; the host
    // crate only launches kernels from modules it has initialised.
    unsafe { ffi::nvshmem_my_pe() }
}

/// The number of PEs in the job (`nvshmem_n_pes`).
///
/// ```ignore
/// assert!(nvshmem_gpu::pe::n_pes() >= 1);
/// ```
#[inline]
pub fn n_pes() -> i32 {
    // SAFETY: as for `my_pe`: a read of initialised device state.
    unsafe { ffi::nvshmem_n_pes() }
}
