// A barrier is made through the PE's `Leader`, which one group per launch holds: a scope alone
// (here every block of the grid at once) cannot make one.
#![forbid(unsafe_code)]
use nvshmem_gpu::Block;

pub fn every_block_meets() {
    Block.barrier_all();
}

fn main() {}
