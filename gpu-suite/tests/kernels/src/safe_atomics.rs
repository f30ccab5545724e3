//! The safe layer's atomics, grid barrier and vector accesses, in safe code.

use nvshmem_gpu::kernel;
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::tid;
#[cfg(target_arch = "nvptx64")]
use device_api_layout as layout;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{sync, thread};

/// The safe layer's atomics on slice elements (remote and local), its grid barrier and a 16-byte
/// vector access, in safe code (see [`layout::safe_atomics`]): launched cooperatively as `BLOCKS`
/// blocks of `THREADS` threads on every PE, with zeroed `counts` (`COUNTS` words) and `cells`
/// (`CELLS` words, 16-byte aligned).
#[kernel]
pub fn safe_atomics_and_grid(
    counts: nvshmem_gpu::SymmetricSlice<u64>,
    cells: nvshmem_gpu::SymmetricSlice<u32>,
) {
    use layout::safe_atomics::*;
    use nvshmem_gpu::{Pe, grid::GridBarrier};
    let barrier = GridBarrier::on(cells, BARRIER);
    let (me, block) = (Pe::me(), thread::block_idx_x() as usize);
    let first_thread = block == 0 && tid() == 0;

    // Contended atomics from every thread of every block.
    for q in 0..Pe::count() {
        let pe = Pe::new(q).expect("q < n_pes");
        counts.atomic_fetch_add(FETCH_ADDED, 1, pe);
        counts.atomic_add(ADDED, 2, pe);
    }
    let ticket = counts.local_fetch_add(LOCAL, 1) as usize;
    cells.local_fetch_add(TICKETS + ticket.min(GRID_THREADS - 1), 1);
    let zero = Pe::new(0).expect("PE 0 exists");
    if counts.atomic_compare_swap(CLAIMED, 0, me.index() as u64 + 1, zero) == 0 {
        counts.atomic_add(CLAIMS, 1, zero);
    }
    if first_thread {
        let before = counts.atomic_swap(SWAPPED, 100 + me.index() as u64, me.next());
        counts.atomic_add(FETCHED, before, me.next());
        counts.atomic_set(SET, 7, me.next());
    }
    sync::quiet();
    barrier.wait();
    if let Some(mut leader) = nvshmem_gpu::Thread::leader() {
        leader.barrier_all();
        // Every PE's swap into this PE's word is complete: read it back through NVSHMEM.
        let swapped = counts.atomic_fetch(SWAPPED, me);
        counts.local_fetch_add(FETCHED, swapped);
    }
    barrier.wait();

    // Rounds of the grid barrier: after each wait, every block must see every block in its round.
    for round in 1..=ROUNDS {
        if tid() == 0 {
            cells.write(ROUND_OF_BLOCK + block, round);
        }
        barrier.wait();
        if tid() == 0 {
            let blocks = thread::blocks_in_grid() as usize;
            if (0..blocks).any(|b| cells.read(ROUND_OF_BLOCK + b) != round) {
                cells.local_fetch_add(ERRORS, 1);
            }
        }
        barrier.wait();
    }

    // A 16-byte vector round trip.
    if first_thread {
        cells.write_vector(VECTOR, VECTOR_VALUES);
        let [a, b, c, d] = cells.read_vector::<4>(VECTOR);
        cells.write_strided(VECTOR + 4, 1, [d, c, b, a]);
    }
}
