//! The `checks` feature's deadline on every blocking call (see the crate documentation's "Checks"
//! section): waits poll with a deadline instead of calling NVSHMEM's wait, and barriers, syncs and
//! collectives first meet their team's other PEs in a handshake that has a deadline, then call
//! NVSHMEM's routine. Without the feature, or on the host, every function here is empty and
//! `#[inline(always)]`, so the wrappers compile to NVSHMEM's call alone.
//!
//! The settings live in a module global, `NVSHMEMRS_DEVICE_CHECKS`, that `nvshmem-host` fills when
//! it loads the module: the time limit (`NVSHMEMRS_DEVICE_TIMEOUT_S`) and the handshake's symmetric
//! scratch. A module loaded by other code keeps the compiled-in limit and skips the handshakes.
//!
//! The handshake counts arrivals pairwise: PE `p`'s `k`-th call on team `t` adds 1 to word
//! `arrivals[t][p]` on every member, and each member waits until that word reaches `k` (it keeps
//! `k`, per team and sender, in `consumed[t][p]` of its own scratch). Counts per pair, not a shared
//! epoch, stay right when a team handle is freed and reused by a team of other PEs.

use crate::call_scope::Scope;
use crate::team::Team;
use core::ffi::CStr;
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
use nvshmem_abi::{DEFAULT_TIMEOUT_NS, DeviceChecks};

/// The settings of this module, found by name ([`nvshmem_abi::DEVICE_CHECKS_SYMBOL`]) by
/// `nvshmem-host` (and kept visible by `nvshmem-builder`'s internalize step).
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
#[unsafe(no_mangle)]
pub static mut NVSHMEMRS_DEVICE_CHECKS: DeviceChecks = DeviceChecks {
    timeout_ns: DEFAULT_TIMEOUT_NS,
    scratch: core::ptr::null_mut(),
    slots: 0,
    reserved: 0,
};

/// With checks on, waits (at most the module's time limit) until every PE of `team` has reached
/// the same collective call `function` by `scope`, and traps with a message naming the missing PE
/// otherwise. Every thread of the scope calls it.
///
/// # Safety
/// Every thread of `scope` calls it, this PE is in `team`, and the symmetric scratch of the module's
/// settings (if any) is used by nothing else.
#[inline(always)]
pub(crate) unsafe fn meet(function: &'static CStr, scope: Scope, team: Team) {
    #[cfg(all(target_arch = "nvptx64", feature = "checks"))]
    // SAFETY: the whole scope calls this (caller), so each scope's sync is reached by all of it;
    // one thread per PE does the handshake.
    unsafe {
        match scope {
            Scope::Thread => handshake(function, team),
            Scope::Warp => {
                crate::thread::sync_warp();
                if crate::thread::lane_id() == 0 {
                    handshake(function, team);
                }
                crate::thread::sync_warp();
            }
            Scope::Block => {
                crate::thread::sync_threads();
                if crate::thread::rank_in_block() == 0 {
                    handshake(function, team);
                }
                crate::thread::sync_threads();
            }
        }
    }
    #[cfg(not(all(target_arch = "nvptx64", feature = "checks")))]
    let _ = (function, scope, team);
}

/// The handshake of [`meet`], by one thread per PE.
///
/// # Safety
/// As for [`meet`], called by one thread per PE.
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
#[inline(never)]
unsafe fn handshake(function: &'static CStr, team: Team) {
    use crate::{ffi, pe};
    // SAFETY: the host writes the settings before any launch and never during one.
    let settings = unsafe { (&raw const NVSHMEMRS_DEVICE_CHECKS).read() };
    let slot = team.raw() as u32;
    if settings.scratch.is_null() || slot >= settings.slots {
        return;
    }
    let n_world = pe::n_pes() as usize;
    let me = pe::my_pe();
    // SAFETY: `scratch` holds `slots × 2 × n_world` symmetric words (the host's contract) and
    // `slot < slots`, so both rows are inside it.
    let arrivals = unsafe { settings.scratch.add(slot as usize * 2 * n_world) };
    // SAFETY: as above, the second row of the slot.
    let consumed = unsafe { arrivals.add(n_world) };
    let members = crate::team::n_pes(team);
    let world_pe = |member| crate::team::translate_pe(team, member, Team::WORLD).unwrap_or(0);
    for member in 0..members {
        // SAFETY: `me < n_world`, so the word is in the symmetric scratch, and a member's world
        // number is a PE of the job. NVSHMEM's own call: the signal module is a layer above.
        unsafe {
            ffi::nvshmemx_signal_op(
                arrivals.add(me as usize),
                1,
                ffi::NVSHMEM_SIGNAL_ADD,
                world_pe(member),
            )
        };
    }
    for member in 0..members {
        let from = world_pe(member) as usize;
        // SAFETY: `from < n_world`: both words are in this PE's rows; `consumed` is written only
        // here, by the one thread per PE that makes the team's collective calls.
        unsafe {
            let count = consumed.add(from);
            let expected = count.read_volatile() + 1;
            poll(
                || (ffi::nvshmem_signal_fetch(arrivals.add(from)) >= expected).then_some(()),
                |waited| {
                    crate::debug::collective_timed_out(
                        function,
                        waited,
                        from as i32,
                        member,
                        members,
                    )
                },
            );
            count.write_volatile(expected);
        }
    }
}

/// Returns what `ready` gives once it gives something, or what `expired` (given the nanoseconds
/// waited; it reports and traps, so it never returns) gives when the module's time limit passes
/// first. Without checks nothing calls it: the waits are NVSHMEM's own.
#[cfg(all(target_arch = "nvptx64", feature = "checks"))]
#[inline(always)]
pub(crate) fn poll<R>(mut ready: impl FnMut() -> Option<R>, expired: impl FnOnce(u64) -> R) -> R {
    // SAFETY: as in `handshake`.
    let limit = unsafe { NVSHMEMRS_DEVICE_CHECKS.timeout_ns };
    let start = crate::debug::global_timer_ns();
    loop {
        if let Some(found) = ready() {
            return found;
        }
        let waited = crate::debug::global_timer_ns().wrapping_sub(start);
        if waited > limit {
            return expired(waited);
        }
    }
}

/// Whether a wait over `count` variables has none to wait for (all skipped, or none at all): NVSHMEM
/// then returns at once, and so must the polling form.
///
/// `skip`, if given, has at least `count` entries (the wait's contract); a shorter one panics.
#[cfg(any(test, all(target_arch = "nvptx64", feature = "checks")))]
pub(crate) fn nothing_to_wait_for(count: usize, skip: Option<&[i32]>) -> bool {
    match skip {
        None => count == 0,
        Some(skip) => skip[..count].iter().all(|&skipped| skipped != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::nothing_to_wait_for;

    #[test]
    fn a_wait_with_every_variable_skipped_has_nothing_to_wait_for() {
        assert!(nothing_to_wait_for(0, None));
        assert!(!nothing_to_wait_for(3, None));
        assert!(nothing_to_wait_for(3, Some(&[1, 2, -1, 0])));
        assert!(!nothing_to_wait_for(3, Some(&[1, 0, 1])));
        assert!(nothing_to_wait_for(0, Some(&[0])));
    }
}
