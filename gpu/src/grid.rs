//! Grid-wide synchronisation: `GridBarrier`, a barrier for all blocks of a cooperatively launched
//! grid.
//!
//! Blocks of a grid normally never wait for each other: a block may not start until another has
//! finished, so a block that waits for a later one can wait forever. A cooperative launch (the host
//! crate's `Kernel::launch_cooperative`) makes every block resident at once, and then blocks can
//! meet at a counter in global memory: each block adds one on arrival (a release, publishing its
//! writes) and waits until the count reaches the number of blocks times the number of barriers
//! passed; then it acquires, so that it sees what every block wrote before arriving. A persistent
//! kernel (one launch looping over all iterations) uses it where separate launches would otherwise
//! order one iteration after the other.
//!
//! The barrier exists only when compiling for `nvptx64`; its arithmetic (the count's comparison,
//! which must survive the counter wrapping around) is checked on the CPU.

#[cfg(target_arch = "nvptx64")]
use crate::{memory, thread};

/// Whether a barrier counter that reads `count` has not yet reached `target`, both counted modulo
/// 2³²: after enough barriers the counter wraps around, and the target wraps with it.
#[cfg(any(test, target_arch = "nvptx64"))]
#[inline]
const fn short_of(count: u32, target: u32) -> bool {
    (count.wrapping_sub(target) as i32) < 0
}

/// A barrier for all blocks of a cooperatively launched grid: when [`wait`](Self::wait) returns in
/// any block, every block has called it as many times, and the writes each block made before are
/// visible to all (release on arrival, acquire on departure).
///
/// One thread per block polls the counter with relaxed loads and acquires once, with a fence, when
/// the count is reached: an acquiring load invalidates the multiprocessor's L1 cache, and polling
/// with one would take the cached lines of every other block still computing on that
/// multiprocessor.
///
/// Every block makes its own `GridBarrier` on the same zeroed counter and calls `wait` the same
/// number of times.
///
/// ```text
/// # unsafe fn example(counter: *mut u32, iterations: u32) {
/// // SAFETY: `counter` was zeroed before this cooperative launch and serves only this barrier.
/// let mut barrier = unsafe { nvshmem_gpu::grid::GridBarrier::new(counter) };
/// for _ in 0..iterations {
///     // ... this block's share of the iteration, then:
///     // SAFETY: every thread of every block calls it once per iteration.
///     unsafe { barrier.wait() };
/// }
/// # }
/// ```
#[cfg(target_arch = "nvptx64")]
#[derive(Debug)]
pub struct GridBarrier {
    counter: *mut u32,
    passed: u32,
}

#[cfg(target_arch = "nvptx64")]
impl GridBarrier {
    /// A barrier over `counter`, a device `u32` that was zero when the kernel started.
    ///
    /// # Safety
    /// `counter` is valid for the whole kernel and used by nothing else; the kernel is launched
    /// cooperatively (all blocks resident), or blocks wait for blocks that never start.
    pub unsafe fn new(counter: *mut u32) -> GridBarrier {
        GridBarrier { counter, passed: 0 }
    }

    /// A barrier over `counter` that earlier launches of this grid (the same number of blocks)
    /// have passed `passed` times in all, for a kernel launched again and again on one counter
    /// without resetting it between launches: launch `i` of a kernel that passes `b` barriers
    /// resumes at `i × b`.
    ///
    /// # Safety
    /// As for [`GridBarrier::new`], except that `counter` holds `blocks_in_grid() × passed`
    /// (modulo 2³²) when the kernel starts instead of zero.
    pub unsafe fn resume(counter: *mut u32, passed: u32) -> GridBarrier {
        GridBarrier { counter, passed }
    }

    /// Waits until every block of the grid has arrived here.
    ///
    /// # Safety
    /// Every thread of every block calls it, the same number of times.
    #[inline]
    pub unsafe fn wait(&mut self) {
        self.passed = self.passed.wrapping_add(1);
        thread::sync_threads();
        if thread::rank_in_block() == 0 {
            let target = thread::blocks_in_grid().wrapping_mul(self.passed);
            // SAFETY: `counter` is the barrier's zero-initialised u32 (the caller's contract).
            unsafe {
                memory::atomic_add_acq_rel_gpu(self.counter, 1);
                while short_of(memory::load_relaxed_gpu(self.counter), target) {}
            }
            memory::fence_acq_rel_gpu();
        }
        thread::sync_threads();
    }
}

#[cfg(test)]
mod tests {
    use super::short_of;

    #[test]
    fn a_count_below_the_target_is_short_of_it() {
        assert!(short_of(0, 1));
        assert!(short_of(127, 128));
        assert!(!short_of(128, 128));
        assert!(!short_of(129, 128));
    }

    #[test]
    fn the_comparison_survives_the_counter_wrapping_around() {
        // 1000 blocks: the target of barrier 4294968 wraps to 1000 · 4294968 − 2³² = 704.
        let target = 1000u32.wrapping_mul(4_294_968);
        assert_eq!(target, 704);
        assert!(short_of(u32::MAX - 5, target));
        assert!(short_of(703, target));
        assert!(!short_of(704, target));
    }
}
