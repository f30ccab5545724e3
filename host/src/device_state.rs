//! NVSHMEM's device state as a loaded module holds it (`nvshmemi_device_state_d`, which
//! `nvshmemx_cumodule_init` fills), read for the decisions the host makes at load.
//!
//! The structure is NVSHMEM's internal one. The host reads it only for a release whose layout it
//! was checked against, and trusts it only when it has that release's size and this PE's number
//! and the PE count where the layout puts them; a release that inserted a field would fail those
//! checks rather than be read wrong.

use crate::Error;
use crate::error::DriverErrorContext as _;
use cudarc::driver::sys::CUmodule;
use nvshmem_locate::Version;
use std::ffi::CString;
use std::fmt;

/// NVSHMEM's device state global.
const DEVICE_STATE_SYMBOL: &str = "nvshmemi_device_state_d";

/// A release whose device-state layout was checked.
#[derive(Debug)]
pub(crate) struct Layout {
    pub(crate) release: Version,
    /// The size of its `nvshmemi_device_host_state_v1` (the `static_assert` beside it in
    /// `nvshmem_types.h`).
    pub(crate) state_bytes: usize,
    /// The byte offset of `unicast_le_ids_`, where the release has logical endpoints.
    pub(crate) le_ids: Option<usize>,
}

pub(crate) const LAYOUTS: [Layout; 2] = [
    Layout {
        release: Version {
            major: 3,
            minor: 4,
            patch: 5,
        },
        state_bytes: 776,
        le_ids: None,
    },
    Layout {
        release: Version {
            major: 3,
            minor: 8,
            patch: 0,
        },
        state_bytes: 848,
        le_ids: Some(808),
    },
];

/// Byte offsets of the leading `int`s, the same in every checked release (after `version`:
/// `mype`, `npes`, …, `job_connectivity`, the ninth).
pub(crate) const MYPE: usize = 4;
pub(crate) const NPES: usize = 8;
pub(crate) const JOB_CONNECTIVITY: usize = 32;

/// Why a module's device state cannot be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Untrusted {
    /// The NVSHMEM release is not one whose layout was checked.
    UncheckedRelease(Version),
    /// The module's device state is not the size of the release's.
    StateSize {
        /// Its size in the module.
        bytes: usize,
        /// The release's.
        expected: usize,
    },
    /// The fields that must hold this PE's number and the PE count do not.
    StateDisagrees {
        /// What was read as `mype`.
        mype: i32,
        /// What was read as `npes`.
        npes: i32,
    },
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Untrusted::UncheckedRelease(release) => {
                write!(f, "NVSHMEM {release}'s device code was not checked")
            }
            Untrusted::StateSize { bytes, expected } => write!(
                f,
                "its device state has {bytes} bytes, not the release's {expected}"
            ),
            Untrusted::StateDisagrees { mype, npes } => write!(
                f,
                "its device state does not read as this job's (PE {mype} of {npes})"
            ),
        }
    }
}

/// A device state checked against its release's layout.
#[derive(Debug)]
pub(crate) struct DeviceState<'a> {
    bytes: &'a [u8],
    layout: &'static Layout,
}

impl<'a> DeviceState<'a> {
    /// `bytes` as the device state of NVSHMEM `release` in PE `my_pe` of `n_pes`, or why it cannot
    /// be trusted.
    pub(crate) fn checked(
        release: Version,
        bytes: &'a [u8],
        my_pe: i32,
        n_pes: i32,
    ) -> Result<DeviceState<'a>, Untrusted> {
        let Some(layout) = LAYOUTS.iter().find(|layout| layout.release == release) else {
            return Err(Untrusted::UncheckedRelease(release));
        };
        if bytes.len() != layout.state_bytes {
            return Err(Untrusted::StateSize {
                bytes: bytes.len(),
                expected: layout.state_bytes,
            });
        }
        let state = DeviceState { bytes, layout };
        let (mype, npes) = (state.int(MYPE), state.int(NPES));
        if (mype, npes) != (my_pe, n_pes) {
            return Err(Untrusted::StateDisagrees { mype, npes });
        }
        Ok(state)
    }

    /// The `int` at byte offset `at` (inside the release's layout).
    pub(crate) fn int(&self, at: usize) -> i32 {
        i32::from_ne_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes"))
    }

    /// Whether NVSHMEM was built with logical endpoints (CFT handles): its table of endpoint ids
    /// is set.
    pub(crate) fn has_logical_endpoints(&self) -> bool {
        self.layout
            .le_ids
            .is_some_and(|at| self.bytes[at..at + 8] != [0; 8])
    }
}

/// The bytes of the module's device state, which `nvshmemx_cumodule_init` has written.
pub(crate) fn read(module: CUmodule) -> Result<Vec<u8>, Error> {
    let (address, bytes) = global(module, DEVICE_STATE_SYMBOL)?;
    let mut state = vec![0u8; bytes];
    // SAFETY: `address` holds `bytes` bytes, which `nvshmemx_cumodule_init` has written.
    unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut state, address) }
        .doing(format!("reading the module's {DEVICE_STATE_SYMBOL}"))?;
    Ok(state)
}

/// The address and size of the module global `symbol`.
pub(crate) fn global(
    module: CUmodule,
    symbol: &str,
) -> Result<(cudarc::driver::sys::CUdeviceptr, usize), Error> {
    let name = CString::new(symbol).expect("no NUL in the symbol name");
    // SAFETY: `module` is a loaded module (the caller's).
    unsafe { cudarc::driver::result::module::get_global(module, name) }
        .doing(format!("finding {symbol} in the module"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use nvshmem_sys::nvshmemi_device_host_state_v1;
    use std::mem::offset_of;

    pub(crate) const V345: Version = LAYOUTS[0].release;
    pub(crate) const V380: Version = LAYOUTS[1].release;

    /// The device state of `LAYOUTS[layout]` for PE 1 of 4 with the `int`s `fields` set.
    pub(crate) fn state(layout: usize, fields: &[(usize, i32)]) -> Vec<u8> {
        let mut state = vec![0u8; LAYOUTS[layout].state_bytes];
        for &(at, value) in [(MYPE, 1), (NPES, 4)].iter().chain(fields) {
            state[at..at + 4].copy_from_slice(&value.to_ne_bytes());
        }
        state
    }

    #[test]
    fn the_layout_is_nvshmems() {
        // The bindings are 3.8.0's; 3.4.5's structure is the same up to its end (3.8 appended).
        type State = nvshmemi_device_host_state_v1;
        assert_eq!(offset_of!(State, mype), MYPE);
        assert_eq!(offset_of!(State, npes), NPES);
        assert_eq!(offset_of!(State, job_connectivity), JOB_CONNECTIVITY);
        assert_eq!(size_of::<State>(), LAYOUTS[1].state_bytes);
        assert_eq!(LAYOUTS[1].le_ids, Some(offset_of!(State, unicast_le_ids_)));
    }

    #[test]
    fn a_state_of_the_release_and_this_pe_is_trusted() {
        for (index, layout) in LAYOUTS.iter().enumerate() {
            let bytes = state(index, &[(JOB_CONNECTIVITY, 2)]);
            let state = DeviceState::checked(layout.release, &bytes, 1, 4).unwrap();
            assert_eq!(state.int(JOB_CONNECTIVITY), 2);
            assert!(!state.has_logical_endpoints());
        }
        let mut with_endpoints = state(1, &[]);
        let at = LAYOUTS[1].le_ids.unwrap();
        with_endpoints[at..at + 8].copy_from_slice(&0x7f00_1234_0000u64.to_ne_bytes());
        let state = DeviceState::checked(V380, &with_endpoints, 1, 4).unwrap();
        assert!(state.has_logical_endpoints());
    }

    #[test]
    fn an_unchecked_release_is_not_read() {
        for (major, minor, patch) in [(3, 4, 6), (3, 9, 0), (4, 0, 0)] {
            let release = Version {
                major,
                minor,
                patch,
            };
            let why = DeviceState::checked(release, &state(1, &[]), 1, 4).unwrap_err();
            assert_eq!(why, Untrusted::UncheckedRelease(release));
            assert!(why.to_string().contains(&release.to_string()), "{why}");
        }
    }

    #[test]
    fn a_state_of_another_size_or_content_is_not_trusted() {
        assert_eq!(
            DeviceState::checked(V345, &state(1, &[]), 1, 4).unwrap_err(),
            Untrusted::StateSize {
                bytes: 848,
                expected: 776
            }
        );
        assert_eq!(
            DeviceState::checked(V380, &state(0, &[]), 1, 4).unwrap_err(),
            Untrusted::StateSize {
                bytes: 776,
                expected: 848
            }
        );
        // A field inserted before `mype` would shift the PE number and count.
        let mut shifted = vec![0u8; 4];
        shifted.extend_from_slice(&state(0, &[])[..772]);
        assert_eq!(
            DeviceState::checked(V345, &shifted, 1, 4).unwrap_err(),
            Untrusted::StateDisagrees { mype: 0, npes: 1 }
        );
        assert!(DeviceState::checked(V345, &state(0, &[]), 2, 4).is_err());
        assert!(DeviceState::checked(V345, &state(0, &[]), 1, 8).is_err());
    }
}
