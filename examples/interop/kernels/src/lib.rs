//! Kernels of the interop example.
//!
//! - `put_pattern` calls NVSHMEM: every thread puts elements of a PE's pattern into another PE's
//!   symmetric buffer with `p`;
//! - `compare_pattern` does not: a plain kernel, which the example launches through cudarc's own
//!   launch builder on the symmetric buffer, writing where it differs from the pattern.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{pe, rma, thread};

/// Element `i` of PE `pe`'s pattern: distinct per PE and per element.
pub fn pattern(pe: i32, i: usize) -> u32 {
    (pe as u32).wrapping_mul(0x9E37_79B9) ^ (i as u32).wrapping_mul(2_654_435_761) ^ 0x5A5A
}

/// Puts this PE's pattern into the first `count` elements of `dest` on PE `target`: thread `t`
/// of the grid puts elements `t, t + grid size, …`. Complete after a barrier or quiet.
///
/// # Safety
/// `dest` holds `count` elements on every PE; `target` is a PE.
#[kernel]
pub unsafe fn put_pattern(dest: SymmetricPtr<u32>, count: usize, target: i32) {
    let me = pe::my_pe();
    for i in (thread::global_index_x()..count).step_by(thread::grid_size_x()) {
        // SAFETY: `i < count`, so the address is inside `dest` on every PE; `target` is a PE.
        unsafe { rma::p(dest.add(i), pattern(me, i), target) };
    }
}

/// Writes `data[i] ^ pattern(from, i)` into `differences[i]` for `i < count`: zero where `data`
/// holds PE `from`'s pattern.
///
/// # Safety
/// `data` and `differences` point to `count` elements of device memory.
#[kernel]
pub unsafe fn compare_pattern(data: *const u32, count: usize, from: i32, differences: *mut u32) {
    for i in (thread::global_index_x()..count).step_by(thread::grid_size_x()) {
        // SAFETY: `i < count`; both point to `count` elements (the caller's contract).
        unsafe { *differences.add(i) = *data.add(i) ^ pattern(from, i) };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn patterns_differ_between_pes_and_elements() {
        assert_ne!(super::pattern(0, 5), super::pattern(1, 5));
        assert_ne!(super::pattern(1, 5), super::pattern(1, 6));
    }
}
