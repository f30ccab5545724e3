//! Which NVSHMEM release first exported each host function that the oldest supported release
//! lacks, and the error for calling one that the loaded library does not have.
//!
//! The bindings come from the newest release's headers; an older library loads all the same,
//! leaving its missing functions unresolved. Calling one panics with [`missing`]'s message, which
//! names the function and the release that added it; check first with
//! [`first_release`] or the function's field (`host.nvshmemx_flush.is_ok()`).

include!("first_release.rs");

/// The release series (`"3.7"`) that first exported `function`, or `None` for a function that
/// NVSHMEM [`OLDEST_RELEASE`] already exports (or that is not bound).
///
/// ```
/// assert_eq!(nvshmem_sys::first_release("nvshmemx_flush"), Some("3.7"));
/// assert_eq!(nvshmem_sys::first_release("nvshmem_malloc"), None);
/// ```
pub fn first_release(function: &str) -> Option<&'static str> {
    FIRST_RELEASE
        .binary_search_by(|(name, _)| name.cmp(&function))
        .ok()
        .map(|index| FIRST_RELEASE[index].1)
}

/// What calling `function` on a library that does not export it means, and what to do.
pub(crate) fn missing_message(function: &str) -> String {
    match first_release(function) {
        Some(release) => format!(
            "NVSHMEM's host library has no {function}: NVSHMEM {release} added it, and the loaded \
             library is older. Load NVSHMEM {release} or later (NVSHMEM_HOME; {}), or check \
             `host.{function}.is_ok()` before calling it",
            nvshmem_locate::newer_release_hint()
        ),
        None => format!(
            "NVSHMEM's host library has no {function}, which every NVSHMEM since \
             {OLDEST_RELEASE} exports: the loaded file is not an intact NVSHMEM 3 host library; \
             reinstall NVSHMEM or point NVSHMEM_HOME at another install"
        ),
    }
}

/// Called by the bindings' methods when `function` is absent from the loaded library: a raw call
/// has no error to return, so the layers above check the function's field first.
pub(crate) fn missing(function: &str) -> ! {
    panic!("{}", missing_message(function))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_so_that_lookups_find_every_entry() {
        assert!(FIRST_RELEASE.windows(2).all(|pair| pair[0].0 < pair[1].0));
        for (name, release) in FIRST_RELEASE {
            assert_eq!(first_release(name), Some(*release));
        }
    }

    #[test]
    fn the_message_names_the_function_and_the_release_that_added_it() {
        let message = missing_message("nvshmemx_signal_counted_reset");
        assert!(
            message.contains("no nvshmemx_signal_counted_reset: NVSHMEM 3.8 added it"),
            "{message}"
        );
        let message = missing_message("nvshmem_malloc");
        assert!(
            message.contains("not an intact NVSHMEM 3 host library"),
            "{message}"
        );
    }
}
