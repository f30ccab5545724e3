// A safe kernel over symmetric slices, PEs and scopes compiles without `unsafe`, and its launch
// descriptor names it. (On the host the kernel's body vanishes, so its imports look unused; the
// real kernels compile it for the GPU.)
#![allow(unused_imports)]
use nvshmem_gpu::{Block, KernelDescriptor, Pe, SafeKernel, SymmetricSlice, Team, kernel};

#[kernel]
pub fn ring_block(source: SymmetricSlice<f32>, received: SymmetricSlice<f32>, team: Team, n: u32) {
    let _ = (team, n);
    let next = Pe::me().next();
    Block.put(received, source, next);
    if let Some(mut leader) = Block::leader() {
        leader.barrier_all();
    }
}

fn is_safe<K: SafeKernel>() {}

fn takes_the_parameters(_: <RingBlock as KernelDescriptor>::Params) {}

fn main() {
    assert_eq!(RingBlock::NAME, "ring_block");
    is_safe::<RingBlock>();
    let _ = takes_the_parameters;
}
