// Collectives are made through the PE's `Leader` too: the raw tier's function needs `unsafe`, and
// the scopes have no collective methods.
#![forbid(unsafe_code)]
use nvshmem_gpu::{Block, SymmetricSlice, Team, collective::op};

pub fn all_reduce(dest: SymmetricSlice<f64>, source: SymmetricSlice<f64>) {
    Block.reduce(Team::WORLD, op::Sum, dest, source);
}

fn main() {}
