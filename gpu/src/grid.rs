//! Grid-wide synchronisation: `GridBarrier`, a barrier for all blocks of a cooperatively launched
//! grid.
//!
//! Blocks of a grid normally never wait for each other: a block may not start until another has
//! finished, so a block that waits for a later one can wait forever. A cooperative launch (the host
//! crate's `Kernel::launch_cooperative`) makes every block resident at once, and then blocks can
//! meet at a counter in global memory. A persistent kernel (one launch looping over all
//! iterations) uses it where separate launches would otherwise order one iteration after the other.
//!
//! The counter flips a phase bit, as CUDA's cooperative groups do for their grid sync: on arrival
//! (a release, publishing the block's writes) block 0 adds `2³¹ − (blocks − 1)` and every other
//! block adds 1, so that the arrivals of one barrier add exactly 2³¹, whatever their order: the
//! top bit flips when, and only when, the last block arrives, and the low 31 bits return to zero.
//! A block waits until the top bit differs from the one its own addition saw, then acquires, so
//! that it sees what every block wrote before arriving. The barrier keeps no count of its own: the
//! counter alone says where the grid is, so it serves any number of `GridBarrier`s made on it and
//! any number of launches, with any number of blocks, once it has been zeroed.
//!
//! The barrier exists only when compiling for `nvptx64`; its arithmetic (`arrival`, `released`)
//! is checked on the CPU, against a model of blocks arriving in many orders.

#[cfg(any(target_arch = "nvptx64", doc))]
use crate::slice::SymmetricSlice;
#[cfg(any(target_arch = "nvptx64", doc))]
use crate::{memory, thread};

/// The counter's phase bit, which each complete barrier flips.
#[cfg(any(test, target_arch = "nvptx64", doc))]
const PHASE: u32 = 1 << 31;

/// What a block of a grid of `blocks` blocks adds to the counter when it arrives: `2³¹ − (blocks −
/// 1)` for the `first` block (block 0), 1 for the others, so that one barrier's arrivals add `2³¹`
/// in all. `blocks` is 1 to 2³¹ (a grid has fewer than 2³¹ blocks).
#[cfg(any(test, target_arch = "nvptx64", doc))]
#[inline]
const fn arrival(first: bool, blocks: u32) -> u32 {
    if first { PHASE - (blocks - 1) } else { 1 }
}

/// Whether the barrier that a block entered when its addition returned `before` is complete, the
/// counter now reading `now`: the phase bit has flipped since.
#[cfg(any(test, target_arch = "nvptx64", doc))]
#[inline]
const fn released(before: u32, now: u32) -> bool {
    (before ^ now) & PHASE != 0
}

/// A barrier for all blocks of a cooperatively launched grid: when [`wait`](Self::wait) returns in
/// any block, every block has called it as many times, and the writes each block made before are
/// visible to all (release on arrival, acquire on departure).
///
/// One thread per block polls the counter with relaxed loads and acquires once, with a fence, when
/// the barrier is complete: an acquiring load invalidates the multiprocessor's L1 cache, and
/// polling with one would take the cached lines of every other block still computing on that
/// multiprocessor.
///
/// Every block makes a `GridBarrier` on the same counter and calls `wait` the same number of times.
/// The counter is a device `u32` zeroed once, before its first use: a relaunch needs no zeroing
/// (every complete barrier leaves the low 31 bits zero), and several `GridBarrier`s in one launch
/// may share it as long as all blocks take the same sequence of waits on it.
///
/// # Why it is safe
/// [`GridBarrier::on`] takes the counter as an element of a [`SymmetricSlice<u32>`]
/// (bounds-checked, aligned, alive for the launch), and the barrier touches it only with atomic
/// accesses, so nothing it does races by Rust's rules. What it cannot check is its use: a launch
/// that is not cooperative (a block waits for one that never becomes resident), blocks that wait
/// a different number of times, or a counter that other code also writes make the barrier hang or
/// release early. Neither is undefined behaviour: the safe layer's accesses to shared memory are
/// atomic (`SymmetricSlice::read`/`write`), so they never rely on a barrier to be race-free, and a
/// barrier released early gives wrong values, not a data race. It is sound under any launch;
/// it works under the host's `run_cooperative`, with a counter zeroed before its first launch and
/// used by this kernel's barriers only.
///
/// ```ignore
/// # fn example(scratch: nvshmem_gpu::SymmetricSlice<u32>, iterations: u32) {
/// let barrier = nvshmem_gpu::grid::GridBarrier::on(scratch, 0);
/// for _ in 0..iterations {
///     // ... this block's share of the iteration, then, in every thread of every block:
///     barrier.wait();
/// }
/// # }
/// ```
#[cfg(any(target_arch = "nvptx64", doc))]
#[derive(Debug)]
pub struct GridBarrier {
    counter: *mut u32,
}

#[cfg(any(target_arch = "nvptx64", doc))]
impl GridBarrier {
    /// A barrier over element `index` of `counters` (see the type's documentation for what makes
    /// it work); traps where `index` is out of bounds.
    #[inline]
    #[track_caller]
    pub fn on(counters: SymmetricSlice<u32>, index: usize) -> GridBarrier {
        let counter = counters.range(index..=index).as_symmetric_ptr().as_ptr();
        GridBarrier { counter }
    }

    /// A barrier over `counter`, a device `u32` that was zeroed before the first launch that used
    /// it, and since then used only by complete barriers of `GridBarrier`s.
    ///
    /// # Safety
    /// `counter` is a valid, aligned device `u32` for the whole kernel, which nothing accesses
    /// but atomically while the kernel runs. (What makes the barrier work, as opposed to safe, is
    /// in the type's documentation.)
    pub unsafe fn new(counter: *mut u32) -> GridBarrier {
        GridBarrier { counter }
    }

    /// Waits until every block of the grid has arrived here. Every thread of every block calls it,
    /// and every block makes the same sequence of waits on the counter; otherwise it hangs or
    /// releases early (see the type's documentation).
    #[inline]
    pub fn wait(&self) {
        thread::sync_threads();
        if thread::rank_in_block() == 0 {
            let first = thread::block_idx_x() | thread::block_idx_y() | thread::block_idx_z() == 0;
            let add = arrival(first, thread::blocks_in_grid());
            // SAFETY: `counter` is a live, aligned device u32 accessed only atomically (`on`'s
            // checked slice element, or `new`'s contract); these are atomic accesses.
            unsafe {
                let before = memory::atomic_add_acq_rel_gpu(self.counter, add);
                while !released(before, memory::load_relaxed_gpu(self.counter)) {}
            }
            memory::fence_acq_rel_gpu();
        }
        thread::sync_threads();
    }
}

#[cfg(test)]
mod tests {
    use super::{PHASE, arrival, released};

    /// A deterministic stream of choices (xorshift), for the interleavings.
    struct Choices(u64);

    impl Choices {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Where a simulated block is.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Block {
        /// Working before its next barrier.
        Running,
        /// Arrived at the barrier, its addition having returned the value.
        Waiting(u32),
    }

    /// Runs a launch of `blocks` blocks that each wait `barriers` times on `counter`, each step
    /// letting a block chosen by `choices` act (arrive, or poll once), and checks that no block
    /// leaves barrier `k` before every block has arrived at it, and that every block leaves every
    /// barrier. Returns the counter afterwards.
    fn run_grid(counter: u32, blocks: u32, barriers: u32, choices: &mut Choices) -> u32 {
        let mut counter = counter;
        let mut state = vec![Block::Running; blocks as usize];
        let mut passed = vec![0u32; blocks as usize];
        let mut arrived = vec![0u32; barriers as usize];
        let mut steps = 0;
        while passed.iter().any(|&p| p < barriers) {
            steps += 1;
            assert!(
                steps < 1_000_000,
                "blocks still waiting: {passed:?} of {barriers}"
            );
            let b = choices.below(blocks as usize);
            match state[b] {
                Block::Running if passed[b] < barriers => {
                    arrived[passed[b] as usize] += 1;
                    let before = counter;
                    counter = counter.wrapping_add(arrival(b == 0, blocks));
                    state[b] = Block::Waiting(before);
                }
                Block::Running => {}
                Block::Waiting(before) => {
                    if released(before, counter) {
                        assert_eq!(
                            arrived[passed[b] as usize], blocks,
                            "block {b} left barrier {} before every block arrived",
                            passed[b]
                        );
                        passed[b] += 1;
                        state[b] = Block::Running;
                    }
                }
            }
        }
        counter
    }

    #[test]
    fn one_barriers_arrivals_add_the_phase_bit_in_any_order() {
        for blocks in [1, 2, 3, 132, 1 << 20] {
            let total = (0..blocks).fold(0u32, |sum, b| sum.wrapping_add(arrival(b == 0, blocks)));
            assert_eq!(total, PHASE, "{blocks} blocks");
            // The largest proper subsets of the arrivals leave the phase bit as it was.
            let all_but_last = total.wrapping_sub(arrival(blocks == 1, blocks));
            let all_but_first = total.wrapping_sub(arrival(true, blocks));
            for base in [0, PHASE] {
                assert!(!released(base, base.wrapping_add(all_but_last)));
                assert!(!released(base, base.wrapping_add(all_but_first)));
            }
        }
    }

    #[test]
    fn blocks_leave_only_after_all_arrive_in_many_interleavings() {
        for seed in 1..200u64 {
            let mut choices = Choices(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let blocks = 1 + choices.below(9) as u32;
            // Seven barriers flip the phase bit an odd number of times.
            assert_eq!(run_grid(0, blocks, 7, &mut choices), PHASE);
        }
    }

    #[test]
    fn two_barriers_on_one_counter_in_one_launch() {
        // Each block makes two barriers on the counter and alternates between them: the counter is
        // all the state, so this is the same as one barrier waited on twice as often.
        let mut choices = Choices(7);
        let end = run_grid(0, 5, 2 * 3, &mut choices);
        assert_eq!(end & !PHASE, 0);
    }

    #[test]
    fn a_relaunch_without_zeroing_the_counter_still_waits() {
        let mut choices = Choices(11);
        let mut counter = 0;
        // Launches with an odd and an even number of barriers and different grid sizes.
        for (blocks, barriers) in [(4, 3), (4, 2), (6, 5), (1, 1), (3, 4)] {
            counter = run_grid(counter, blocks, barriers, &mut choices);
        }
        // 15 barriers: the phase bit flipped an odd number of times, the low bits are back at 0.
        assert_eq!(counter, PHASE);
    }
}
