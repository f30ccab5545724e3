//! NVSHMEM's host calls on teams (`nvshmem_team_*`, team barriers and syncs), each with its status
//! turned into [`Error`]; [`crate::TeamHandle`] and the team methods of [`crate::Nvshmem`] check
//! the arguments and call these.
//!
//! Every function here shares one contract, besides its own: NVSHMEM is initialised and `team`
//! (or `parent`) is an existing team: predefined, or split and not yet destroyed.

use super::status;
use crate::Error;
use nvshmem_sys::NvshmemHost;

/// What a team split needs when it fails.
const SPLIT_HINT: &str = "every PE of the parent team must call it with the same arguments; with several PEs per GPU, run under MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ≤ 100 / PEs per GPU (`nvshmemrun --mps` does both)";

/// `nvshmem_team_my_pe`: this PE's number in `team`, negative where it is not a member.
///
/// # Safety
/// The module's contract.
pub unsafe fn my_pe(lib: &NvshmemHost, team: i32) -> i32 {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmem_team_my_pe(team) }
}

/// `nvshmem_team_n_pes`: the number of PEs in `team`.
///
/// # Safety
/// The module's contract.
pub unsafe fn n_pes(lib: &NvshmemHost, team: i32) -> i32 {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmem_team_n_pes(team) }
}

/// `nvshmem_team_translate_pe`: the number in `dest_team` of the PE that is `pe` in `src_team`,
/// negative where that PE is not in `dest_team`.
///
/// # Safety
/// The module's contract, for both teams; `pe` is in `0..n_pes` of `src_team`.
pub unsafe fn translate_pe(lib: &NvshmemHost, src_team: i32, pe: i32, dest_team: i32) -> i32 {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmem_team_translate_pe(src_team, pe, dest_team) }
}

/// `nvshmem_team_split_strided` without a configuration: the new team of the PEs `start + stride ×
/// i` (`i < size`) of `parent`, negative on PEs outside it.
///
/// # Safety
/// The module's contract; this PE is in `parent`; every PE of `parent` calls it with the same
/// arguments.
pub unsafe fn split_strided(
    lib: &NvshmemHost,
    parent: i32,
    start: i32,
    stride: i32,
    size: i32,
) -> Result<i32, Error> {
    let mut new_team = -1;
    // SAFETY: the caller's contract above; no configuration is passed (null, mask 0); `new_team`
    // is a valid out-pointer.
    let code = unsafe {
        lib.nvshmem_team_split_strided(
            parent,
            start,
            stride,
            size,
            std::ptr::null(),
            0,
            &mut new_team,
        )
    };
    status("nvshmem_team_split_strided", code, SPLIT_HINT)?;
    Ok(new_team)
}

/// `nvshmem_team_split_2d` without configurations: this PE's row and column teams of `parent` cut
/// into rows of `x_range` PEs, each negative where NVSHMEM gives this PE none.
///
/// # Safety
/// The module's contract; this PE is in `parent`; every PE of `parent` calls it with the same
/// arguments.
pub unsafe fn split_2d(lib: &NvshmemHost, parent: i32, x_range: i32) -> Result<(i32, i32), Error> {
    let (mut x_team, mut y_team) = (-1, -1);
    // SAFETY: the caller's contract above; no configurations (null, masks 0); both out-pointers
    // are valid.
    let code = unsafe {
        lib.nvshmem_team_split_2d(
            parent,
            x_range,
            std::ptr::null(),
            0,
            &mut x_team,
            std::ptr::null(),
            0,
            &mut y_team,
        )
    };
    status("nvshmem_team_split_2d", code, SPLIT_HINT)?;
    Ok((x_team, y_team))
}

/// `nvshmem_team_destroy`.
///
/// # Safety
/// The module's contract; `team` came from a split on this PE, is destroyed once, and no kernel
/// using it runs any more; every member destroys it in the same order.
pub unsafe fn destroy(lib: &NvshmemHost, team: i32) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmem_team_destroy(team) }
}

/// `nvshmem_barrier` from the host: completes this PE's operations, then waits for every PE of
/// `team`.
///
/// # Safety
/// The module's contract; this PE is in `team`; every PE of the team calls it.
pub unsafe fn barrier(lib: &NvshmemHost, team: i32) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmem_barrier(team) };
    status(
        "nvshmem_barrier",
        code,
        "every PE of the team must call it; team barriers with several PEs per GPU need MPS",
    )
}

/// `nvshmem_team_sync` from the host: waits for every PE of `team`, without completing operations.
///
/// # Safety
/// The module's contract; this PE is in `team`; every PE of the team calls it.
pub unsafe fn sync(lib: &NvshmemHost, team: i32) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmem_team_sync(team) };
    status(
        "nvshmem_team_sync",
        code,
        "every PE of the team must call it; team syncs with several PEs per GPU need MPS",
    )
}
