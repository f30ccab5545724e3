//! Which PE this is and how many there are (NVSHMEM: "Library setup, exit, and query routines").

use crate::ffi;

/// This PE's number, `0..n_pes()` (`nvshmem_my_pe`).
///
/// ```no_run
/// # fn in_a_kernel() {
/// let next = (nvshmem_gpu::pe::my_pe() + 1) % nvshmem_gpu::pe::n_pes();
/// # }
/// ```
#[inline]
pub fn my_pe() -> i32 {
    // SAFETY: `nvshmem_my_pe` reads the device state that `nvshmemx_cumodule_init` set up; the host
    // crate only launches kernels from modules it has initialised.
    unsafe { ffi::nvshmem_my_pe() }
}

/// The number of PEs in the job (`nvshmem_n_pes`).
///
/// ```no_run
/// # fn in_a_kernel() {
/// assert!(nvshmem_gpu::pe::n_pes() >= 1);
/// # }
/// ```
#[inline]
pub fn n_pes() -> i32 {
    // SAFETY: as for `my_pe`: a read of initialised device state.
    unsafe { ffi::nvshmem_n_pes() }
}

/// The longest name [`info_name`] writes, with its NUL (`NVSHMEM_MAX_NAME_LEN`).
pub const MAX_NAME_LEN: usize = 256;

/// The OpenSHMEM specification version NVSHMEM implements, `(major, minor)`
/// (`nvshmem_info_get_version`).
#[inline]
pub fn info_version() -> (i32, i32) {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid out-pointers; the call writes constants.
    unsafe { ffi::nvshmem_info_get_version(&mut major, &mut minor) };
    (major, minor)
}

/// NVSHMEM's release, `(major, minor, patch)` (`nvshmemx_vendor_get_version_info`).
#[inline]
pub fn vendor_version() -> (i32, i32, i32) {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: three valid out-pointers; the call writes constants.
    unsafe { ffi::nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch) };
    (major, minor, patch)
}

/// Writes NVSHMEM's vendor string (`"NVSHMEM v3.4.5"`), NUL-terminated, into `name`
/// (`nvshmem_info_get_name`).
#[inline]
pub fn info_name(name: &mut [u8; MAX_NAME_LEN]) {
    // SAFETY: `name` has room for NVSHMEM_MAX_NAME_LEN bytes, the most the call writes.
    unsafe { ffi::nvshmem_info_get_name(name.as_mut_ptr().cast()) }
}

/// Asks every PE of the job to exit with `status` (`nvshmem_global_exit`): NVSHMEM's host side ends
/// the processes; this thread carries on until then.
///
/// # Safety
/// Only valid in a kernel of a module initialised for NVSHMEM; the job ends, so whatever other PEs
/// are doing is cut short.
#[inline]
pub unsafe fn global_exit(status: i32) {
    // SAFETY: the caller's contract above.
    unsafe { ffi::nvshmem_global_exit(status) }
}
