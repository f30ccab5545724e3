//! The kernels that time the floors an iteration cannot go below: the copy rate of a working set
//! and one launch.

use crate::sweep::Lanes;
use nvshmem_gpu::kernel;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::thread;

/// Copies `len` 16-byte words from `a` to `b`, then back, `trips` times in all (odd trips go
/// `a → b`, even ones `b → a`), grid-stride: one launch whose time over `trips` is the copy rate
/// of a working set of this size (in L2 when it fits), without a launch per copy.
///
/// # Safety
/// `a` and `b` hold `len` 16-byte aligned words each.
#[kernel]
pub unsafe fn copy_trips(a: *mut Lanes, b: *mut Lanes, len: usize, trips: u32) {
    const IN_FLIGHT: usize = 4;
    let (start, stride) = (thread::global_index_x(), thread::grid_size_x());
    for trip in 0..trips {
        let (from, to) = if trip % 2 == 0 { (a, b) } else { (b, a) };
        let mut i = start;
        // Several loads before any store, as the stencil does, so that the copy is not held
        // back by one load's latency at a time.
        while i + (IN_FLIGHT - 1) * stride < len {
            // SAFETY: every index is below `len` (the loop's condition).
            unsafe {
                let words: [Lanes; IN_FLIGHT] = core::array::from_fn(|k| *from.add(i + k * stride));
                for (k, word) in words.into_iter().enumerate() {
                    *to.add(i + k * stride) = word;
                }
            }
            i += IN_FLIGHT * stride;
        }
        while i < len {
            // SAFETY: `i < len`.
            unsafe { *to.add(i) = *from.add(i) };
            i += stride;
        }
    }
}

/// Does nothing: back-to-back launches of it time one launch, the floor of an iteration that
/// launches a kernel.
#[kernel]
pub fn nothing() {}
