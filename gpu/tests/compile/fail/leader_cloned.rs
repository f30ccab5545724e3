// A `Leader` cannot be duplicated for a second group: it is neither `Clone` nor `Copy`.
#![forbid(unsafe_code)]
use nvshmem_gpu::{Block, Leader};

pub fn share(leader: &Leader<Block>) -> Leader<Block> {
    leader.clone()
}

fn main() {}
