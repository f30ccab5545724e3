//! The device-side checks of PE arguments (the `checks` feature; see the crate documentation's
//! "Checks" section). Every wrapper that takes a PE calls [`check_pe!`] or [`check_team_pe!`] first.
//! Without the feature, or on the host, the checks are empty `#[inline(always)]` functions and
//! compile to nothing.

use crate::team::Team;
use core::ffi::CStr;

/// `text` (which ends in a NUL) as a C string; evaluated at compile time by the macros below.
pub(crate) const fn c_name(text: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(text.as_bytes()) {
        Ok(name) => name,
        Err(_) => panic!("a wrapper name must end in its only NUL"),
    }
}

/// The path of the wrapper `$function` of the calling module (`nvshmem_gpu::rma::block::put`), as
/// a C string made at compile time.
macro_rules! wrapper_name {
    ($function:expr) => {
        const { $crate::checks::c_name(concat!(module_path!(), "::", $function, "\0")) }
    };
}
pub(crate) use wrapper_name;

/// Checks the PE argument `$pe` of the wrapper `$function` of the calling module against
/// `0..pe::n_pes()`.
macro_rules! check_pe {
    ($function:expr, $pe:expr) => {
        $crate::checks::pe($crate::checks::wrapper_name!($function), $pe)
    };
}
pub(crate) use check_pe;

/// Checks the PE argument `$pe`, a PE of `$team`, of the wrapper `$function` of the calling module
/// against `0..team::n_pes($team)`.
macro_rules! check_team_pe {
    ($function:expr, $team:expr, $pe:expr) => {
        $crate::checks::team_pe($crate::checks::wrapper_name!($function), $team, $pe)
    };
}
pub(crate) use check_team_pe;

/// With checks on, prints a message naming `function` and traps unless `pe` is in `0..n_pes()`.
#[inline(always)]
pub(crate) fn pe(function: &'static CStr, pe: i32) {
    #[cfg(all(target_arch = "nvptx64", feature = "checks"))]
    {
        let n_pes = crate::pe::n_pes();
        // One unsigned compare covers both ends: a negative `pe` wraps to above any PE count.
        if pe as u32 >= n_pes as u32 {
            crate::debug::pe_out_of_range(function, pe, n_pes);
        }
    }
    #[cfg(not(all(target_arch = "nvptx64", feature = "checks")))]
    let _ = (function, pe);
}

/// With checks on, prints a message naming `function` and traps unless `pe` is in
/// `0..team::n_pes(team)`.
#[inline(always)]
pub(crate) fn team_pe(function: &'static CStr, team: Team, pe: i32) {
    #[cfg(all(target_arch = "nvptx64", feature = "checks"))]
    {
        let n_pes = crate::team::n_pes(team);
        if pe as u32 >= n_pes as u32 {
            crate::debug::team_pe_out_of_range(function, team.raw(), pe, n_pes);
        }
    }
    #[cfg(not(all(target_arch = "nvptx64", feature = "checks")))]
    let _ = (function, team, pe);
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrapper_names_are_their_rust_paths() {
        let name = super::wrapper_name!("put_nbi");
        assert_eq!(name.to_str(), Ok("nvshmem_gpu::checks::tests::put_nbi"));
    }

    #[test]
    fn checks_compile_to_nothing_on_the_host() {
        // Out of range, but the host has no device to check against: nothing happens.
        super::check_pe!("put", -1);
        super::check_team_pe!("broadcast", crate::Team::WORLD, i32::MAX);
    }
}
