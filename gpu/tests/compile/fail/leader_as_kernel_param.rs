// A `Leader` cannot arrive as a kernel parameter, which every block of the grid would receive.
#![forbid(unsafe_code)]
use nvshmem_gpu::{Block, Leader, kernel};

#[kernel]
pub fn meet(leader: Leader<Block>) {
    let _ = leader;
}

fn main() {}
