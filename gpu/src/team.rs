//! Teams: ordered subsets of the PEs that collectives and team barriers run over (NVSHMEM: "Team
//! management routines").
//!
//! A [`Team`] is NVSHMEM's `nvshmem_team_t`, a small integer, so it is `Copy` and travels to kernels
//! as a plain parameter. The predefined teams are constants; others are created on the host
//! (`nvshmem_host`'s `Nvshmem::split_strided` and `split_2d`), which hands them to kernels as `Team`.
//! A `Team` value always names a team that existed when it was made: there is no public constant for
//! NVSHMEM's invalid team, and [`Team::from_raw`] is `unsafe`, so a split that leaves a PE out gives
//! that PE no `Team` at all rather than one that fails at run time.
//!
//! ```no_run
//! use nvshmem_gpu::{team, Team};
//! # fn in_a_kernel(some_team: Team) {
//! let me = team::my_pe(Team::WORLD).unwrap(); // every PE is in WORLD
//! let world_pe_of_0 = team::translate_pe(some_team, 0, Team::WORLD);
//! # }
//! ```

use crate::ffi;

pub use nvshmem_abi::Team;

/// This PE's number in `team`, `None` if it is not a member (`nvshmem_team_my_pe`).
#[inline]
pub fn my_pe(team: Team) -> Option<i32> {
    // SAFETY: `Team` values name existing teams (see `Team::from_raw`); the query reads device state
    // that `nvshmemx_cumodule_init` set up.
    let pe = unsafe { ffi::nvshmem_team_my_pe(team.raw()) };
    (pe >= 0).then_some(pe)
}

/// The number of PEs in `team` (`nvshmem_team_n_pes`).
#[inline]
pub fn n_pes(team: Team) -> i32 {
    // SAFETY: as for `my_pe`.
    unsafe { ffi::nvshmem_team_n_pes(team.raw()) }
}

/// The number in `dest_team` of the PE that is `pe` in `src_team`, `None` if that PE is not in
/// `dest_team` or `pe` is not in `0..n_pes(src_team)` (`nvshmem_team_translate_pe`; the range is
/// checked here, as NVSHMEM 3.4.5's device code lets `pe == n_pes` and negative `pe` through).
#[inline]
pub fn translate_pe(src_team: Team, pe: i32, dest_team: Team) -> Option<i32> {
    if !(0..n_pes(src_team)).contains(&pe) {
        return None;
    }
    // SAFETY: as for `my_pe`, and `pe` indexes the source team's PE table (checked above).
    let translated = unsafe { ffi::nvshmem_team_translate_pe(src_team.raw(), pe, dest_team.raw()) };
    (translated >= 0).then_some(translated)
}

/// The job's PE that is number `index` in `team`, or `None` if `index` is not in
/// `0..n_pes(team)`: the one way from a team-relative number to a [`Pe`](crate::Pe).
#[inline]
pub fn world_pe(team: Team, index: i32) -> Option<crate::Pe> {
    let world = translate_pe(team, index, Team::WORLD)?;
    // SAFETY: NVSHMEM translated a member of `team` into the world team, whose numbers are
    // `0..n_pes()`.
    Some(unsafe { crate::Pe::new_unchecked(world) })
}
