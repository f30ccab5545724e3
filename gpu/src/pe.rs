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

/// A PE of the job (a number in `0..n_pes()` of the world team), valid by construction: safe calls
/// that take a `Pe` need no check of it, and a team-relative number cannot be passed by mistake,
/// since it is an `i32` until [`crate::team::world_pe`] translates it.
///
/// ```no_run
/// use nvshmem_gpu::Pe;
/// # fn in_a_kernel() {
/// let next = Pe::me().next(); // wraps around after the last PE
/// let first = Pe::new(0).expect("every job has PE 0");
/// assert!(Pe::new(Pe::count()).is_none());
/// # }
/// ```
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pe(i32);

impl Pe {
    /// This PE.
    #[inline]
    pub fn me() -> Pe {
        Pe(my_pe())
    }

    /// The number of PEs in the job.
    #[inline]
    pub fn count() -> i32 {
        n_pes()
    }

    /// PE `index`, or `None` unless `index` is in `0..n_pes()`.
    #[inline]
    pub fn new(index: i32) -> Option<Pe> {
        checked(index, n_pes()).map(Pe)
    }

    /// The PE after this one, PE 0 after the last.
    #[inline]
    pub fn next(self) -> Pe {
        Pe(wrapping_offset(self.0, 1, n_pes()))
    }

    /// The PE before this one, the last before PE 0.
    #[inline]
    pub fn prev(self) -> Pe {
        Pe(wrapping_offset(self.0, -1, n_pes()))
    }

    /// The PE `offset` places on (or back, when negative), wrapping around the job.
    #[inline]
    pub fn offset(self, offset: i32) -> Pe {
        Pe(wrapping_offset(self.0, offset, n_pes()))
    }

    /// The PE's number, for the raw tier and for arithmetic.
    #[inline]
    pub const fn index(self) -> i32 {
        self.0
    }

    /// Wraps a number the caller knows is a PE of the job.
    ///
    /// # Safety
    /// `index` is in `0..n_pes()`.
    #[inline]
    pub const unsafe fn new_unchecked(index: i32) -> Pe {
        Pe(index)
    }
}

/// `index` if it is in `0..n_pes` (`n_pes` not negative, as `n_pes()` never is).
#[inline]
const fn checked(index: i32, n_pes: i32) -> Option<i32> {
    // One unsigned comparison, a negative index wrapping above `n_pes`. Unlike `index >= 0`, it
    // tells LLVM nothing of the index's sign, so that a `Pe` widens to an address offset with the
    // same instruction as the raw tier's `i32` does.
    if (index as u32) < (n_pes as u32) {
        Some(index)
    } else {
        None
    }
}

/// `pe + offset` modulo `n_pes` (`pe` in `0..n_pes`), in `0..n_pes` for any `offset`.
#[inline]
const fn wrapping_offset(pe: i32, offset: i32, n_pes: i32) -> i32 {
    ((pe as i64 + offset as i64).rem_euclid(n_pes as i64)) as i32
}

#[cfg(test)]
mod tests {
    use super::{checked, wrapping_offset};

    #[test]
    fn only_numbers_of_the_job_are_pes() {
        assert_eq!(checked(0, 1), Some(0));
        assert_eq!(checked(3, 4), Some(3));
        assert_eq!(checked(4, 4), None);
        assert_eq!(checked(-1, 4), None);
        assert_eq!(checked(i32::MIN, i32::MAX), None);
        assert_eq!(checked(0, 0), None);
    }

    #[test]
    fn neighbours_wrap_around_the_job() {
        assert_eq!(wrapping_offset(3, 1, 4), 0);
        assert_eq!(wrapping_offset(0, -1, 4), 3);
        assert_eq!(wrapping_offset(0, 1, 1), 0);
        assert_eq!(
            wrapping_offset(2, i32::MIN, 3),
            (2 + i32::MIN as i64).rem_euclid(3) as i32
        );
        assert_eq!(
            wrapping_offset(1, i32::MAX, 4),
            ((1 + i32::MAX as i64) % 4) as i32
        );
    }
}
