//! Barriers and syncs over all PEs at every scope, and the queries that need no team creation.

use nvshmem_gpu::{SymmetricPtr, kernel};
// What the kernels use exists only on the GPU, like the kernels themselves.
#[cfg(target_arch = "nvptx64")]
use crate::{record, tid};
#[cfg(target_arch = "nvptx64")]
use device_api_layout as layout;
#[cfg(target_arch = "nvptx64")]
use nvshmem_gpu::{Team, atomic, pe, sync, team, thread};

/// Adds one to `counter` on every PE of `pes` (thread 0), then completes the adds.
///
/// # Safety
/// `counter` is a symmetric `u64`; the PEs are valid.
#[cfg(target_arch = "nvptx64")]
pub unsafe fn add_everywhere(counter: SymmetricPtr<u64>, pes: impl Iterator<Item = i32>) {
    if tid() == 0 {
        // SAFETY: the caller's contract; the PEs are valid.
        unsafe {
            for q in pes {
                atomic::add(counter, 1, q);
            }
            sync::quiet();
        }
    }
}

/// Barriers and syncs over all PEs at every scope, the debugging barrier, and the queries that
/// need no team creation (see [`layout::world`]).
///
/// # Safety
/// `counters` holds `VARIANTS` zeroed words, `workspace` `MAX_PES + 1` zeroed words, `results`
/// `RESULTS`, all symmetric; every PE launches it cooperatively as one block.
#[kernel]
pub unsafe fn world_sync(
    counters: SymmetricPtr<u64>,
    workspace: SymmetricPtr<u64>,
    results: SymmetricPtr<i64>,
) {
    let (me, n) = (pe::my_pe(), pe::n_pes());
    let t = tid();
    // SAFETY: sizes as documented; each barrier variant is reached by one thread, warp 0 or the
    // whole block on every PE, as its scope requires, in the same order everywhere.
    unsafe {
        for variant in 0..layout::world::VARIANTS {
            add_everywhere(counters.add(variant), 0..n);
            thread::sync_threads();
            match variant {
                // ANCHOR: barrier_scopes
                0 if t == 0 => sync::barrier_all(),
                1 if t < 32 => sync::barrier_all_warp(),
                2 => sync::barrier_all_block(),
                3 if t == 0 => sync::sync_all(),
                4 if t < 32 => sync::sync_all_warp(),
                5 => sync::sync_all_block(),
                // ANCHOR_END: barrier_scopes
                6 if t == 0 => sync::barrier_all_timeout(workspace, 1 << 40),
                7 => sync::barrier_all_block_timeout(workspace, 1 << 40),
                _ => {}
            }
            thread::sync_threads();
            if t == 0 {
                let counted = core::ptr::read_volatile(counters.add(variant).as_ptr());
                record(results, variant, counted as i64);
            }
        }
        if t == 0 {
            let q = layout::world::QUERIES;
            let as_i64 = |v: Option<i32>| v.map_or(-1, i64::from);
            record(results, q, as_i64(team::my_pe(Team::WORLD)));
            record(results, q + 1, team::n_pes(Team::WORLD) as i64);
            record(results, q + 2, as_i64(team::my_pe(Team::NODE)));
            record(results, q + 3, team::n_pes(Team::NODE) as i64);
            record(
                results,
                q + 4,
                as_i64(team::translate_pe(Team::WORLD, me, Team::WORLD)),
            );
            record(
                results,
                q + 5,
                as_i64(team::translate_pe(Team::WORLD, n, Team::WORLD)),
            );
            let (spec_major, spec_minor) = pe::info_version();
            record(results, q + 6, spec_major as i64);
            record(results, q + 7, spec_minor as i64);
            let (major, minor, patch) = pe::vendor_version();
            record(results, q + 8, major as i64);
            record(results, q + 9, minor as i64);
            record(results, q + 10, patch as i64);
            let mut name = [0u8; nvshmem_gpu::pe::MAX_NAME_LEN];
            pe::info_name(&mut name);
            record(results, q + 11, name.starts_with(b"NVSHMEM v") as i64);
        }
        sync::barrier_all_block();
    }
}
