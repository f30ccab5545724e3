// The PE's `Leader` makes barriers and collectives one after the other, without `unsafe`.
#![forbid(unsafe_code)]
use nvshmem_gpu::{Block, Leader, SymmetricSlice, Team, Thread, collective::op};

pub fn all_reduce_then_gather(
    leader: &mut Leader<Block>,
    partial: SymmetricSlice<f64>,
    total: SymmetricSlice<f64>,
    gathered: SymmetricSlice<f64>,
) {
    leader.reduce(Team::WORLD, op::Sum, total, partial);
    leader.barrier(Team::WORLD);
    leader.fcollect(Team::WORLD, gathered, total);
    leader.broadcast(Team::WORLD, total, partial, 0);
    leader.sync_all();
}

pub fn exchange(leader: &mut Leader<Thread>, dest: SymmetricSlice<u32>, source: SymmetricSlice<u32>) {
    leader.alltoall(Team::WORLD, dest, source);
    leader.reducescatter(Team::WORLD, op::Xor, dest, source);
    leader.team_sync(Team::WORLD);
    leader.barrier_all();
}

fn main() {}
