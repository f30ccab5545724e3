// A `Leader` moved into one call is gone: two uses of one token need the first one back.
#![forbid(unsafe_code)]
use nvshmem_gpu::{Block, Leader};

pub fn keep(_: Leader<Block>) {}

pub fn twice(leader: Leader<Block>) {
    keep(leader);
    keep(leader);
}

fn main() {}
