// Safe code cannot make a `Leader` itself: only `Thread::leader`, `Warp::leader` and
// `Block::leader` make one, in one group per launch.
#![forbid(unsafe_code)]
use core::marker::PhantomData;
use nvshmem_gpu::{Block, Leader};

pub fn forge() -> Leader<Block> {
    Leader { scope: PhantomData }
}

fn main() {}
