//! Whether a loaded module's load/store path may add to mapped peers' signal words with its own
//! atomics, or must hand every addition to NVSHMEM (`nvshmem-gpu`'s `NVSHMEMRS_MAPPED_SIGNAL_ADDS`;
//! its `peer/connectivity.rs` says why it matters).
//!
//! NVSHMEM adds through the mapping itself (`nvshmemi_signal_op`) exactly when the job's
//! `job_connectivity` is at most `NVSHMEMI_JOB_GPU_LDST` (every PE maps every other), in the
//! device code of the releases checked here, 3.4.5 and 3.8.0, with one exception in 3.8.0: built
//! with `NVSHMEM_CFT_HANDLES_SUPPORT` (its packages are not), it may send an addition through a
//! logical-endpoint handle instead, and such a build gives its device state a table of endpoint
//! ids (`unicast_le_ids_`, which its device code reads for every such decision; null otherwise).
//! Both fields live in NVSHMEM's device state (`nvshmemi_device_state_d`), an internal structure:
//! the host reads it from the module, after `nvshmemx_cumodule_init` filled it, only for a release
//! whose layout it knows, and only trusts it when the structure has that release's size and its own
//! PE number and PE count where the layout puts them. Every other case leaves the global at 0, and
//! NVSHMEM applies every addition: slower, never wrong.

use crate::error::CudaContext as _;
use crate::{Error, ModuleError, Nvshmem};
use cudarc::driver::sys::CUmodule;
use nvshmem_abi::MAPPED_SIGNAL_ADDS_SYMBOL;
use nvshmem_locate::Version;
use std::ffi::CString;
use std::fmt;

/// NVSHMEM's device state global, which `nvshmemx_cumodule_init` fills.
const DEVICE_STATE_SYMBOL: &str = "nvshmemi_device_state_d";

/// A release whose `nvshmemi_signal_op` and device-state layout were checked.
struct Checked {
    release: Version,
    /// The size of its `nvshmemi_device_host_state_v1` (the `static_assert` beside it in
    /// `nvshmem_types.h`).
    state_bytes: usize,
    /// The byte offset of `unicast_le_ids_`, where the release has logical endpoints.
    le_ids: Option<usize>,
}

const CHECKED: [Checked; 2] = [
    Checked {
        release: Version {
            major: 3,
            minor: 4,
            patch: 5,
        },
        state_bytes: 776,
        le_ids: None,
    },
    Checked {
        release: Version {
            major: 3,
            minor: 8,
            patch: 0,
        },
        state_bytes: 848,
        le_ids: Some(808),
    },
];

/// Byte offsets of the device state's leading `int`s that the decision reads, the same in every
/// checked release (after `version`: `mype`, `npes`, …, `job_connectivity`, the ninth).
const MYPE: usize = 4;
const NPES: usize = 8;
const JOB_CONNECTIVITY: usize = 32;

/// `NVSHMEMI_JOB_GPU_LDST_ATOMICS` and `NVSHMEMI_JOB_GPU_LDST`: the connectivities at which
/// NVSHMEM adds through the mapping.
const LOAD_STORE_JOBS: [i32; 2] = [1, 2];

/// Why a module hands signal additions to NVSHMEM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delegated {
    /// The NVSHMEM release is not one whose device code was checked.
    UncheckedRelease(Version),
    /// The module's device state is not the size of the release's.
    StateSize {
        /// Its size in the module.
        bytes: usize,
        /// The release's.
        expected: usize,
    },
    /// NVSHMEM's logical endpoints may carry some additions.
    LogicalEndpoints,
    /// The fields that must hold this PE's number and the PE count do not.
    StateDisagrees {
        /// What was read as `mype`.
        mype: i32,
        /// What was read as `npes`.
        npes: i32,
    },
    /// Some PE reaches another only through the proxy or the network.
    NotAllMapped {
        /// The job's `job_connectivity`.
        connectivity: i32,
    },
}

impl fmt::Display for Delegated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delegated::UncheckedRelease(release) => {
                write!(f, "NVSHMEM {release}'s device code was not checked")
            }
            Delegated::StateSize { bytes, expected } => write!(
                f,
                "its device state has {bytes} bytes, not the release's {expected}"
            ),
            Delegated::LogicalEndpoints => write!(
                f,
                "NVSHMEM was built with logical endpoints (CFT handles), which may carry additions"
            ),
            Delegated::StateDisagrees { mype, npes } => write!(
                f,
                "its device state does not read as this job's (PE {mype} of {npes})"
            ),
            Delegated::NotAllMapped { connectivity } => write!(
                f,
                "the job's connectivity is {connectivity}: not every PE maps every other"
            ),
        }
    }
}

/// Whether signal additions may go through the mapping, for device code of `release` whose device
/// state is `state`, in PE `my_pe` of a job of `n_pes` PEs.
pub(crate) fn decide(
    release: Version,
    state: &[u8],
    my_pe: i32,
    n_pes: i32,
) -> Result<(), Delegated> {
    let Some(checked) = CHECKED.iter().find(|checked| checked.release == release) else {
        return Err(Delegated::UncheckedRelease(release));
    };
    if state.len() != checked.state_bytes {
        return Err(Delegated::StateSize {
            bytes: state.len(),
            expected: checked.state_bytes,
        });
    }
    let int = |at: usize| i32::from_ne_bytes(state[at..at + 4].try_into().expect("4 bytes"));
    if (int(MYPE), int(NPES)) != (my_pe, n_pes) {
        return Err(Delegated::StateDisagrees {
            mype: int(MYPE),
            npes: int(NPES),
        });
    }
    if let Some(at) = checked.le_ids
        && state[at..at + 8] != [0; 8]
    {
        return Err(Delegated::LogicalEndpoints);
    }
    let connectivity = int(JOB_CONNECTIVITY);
    if !LOAD_STORE_JOBS.contains(&connectivity) {
        return Err(Delegated::NotAllMapped { connectivity });
    }
    Ok(())
}

/// How a module's kernels apply signal additions to peers whose memory is mapped into their PE
/// ([`crate::Module::signal_adds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignalAdds {
    /// With the GPU's own system-scope atomics, as NVSHMEM does in this job.
    Mapped,
    /// Through NVSHMEM (`nvshmemx_signal_op`), for the reason given: right in every job, slower
    /// where the GPU's atomics would do.
    Nvshmem(String),
    /// The kernels were built without `nvshmem-gpu`'s load/store path (`nvshmem-only`): NVSHMEM
    /// applies every signal operation.
    NoLoadStorePath,
}

/// Sets the module's `NVSHMEMRS_MAPPED_SIGNAL_ADDS` to 1 where [`decide`] allows it; a module
/// without the global (built without the load/store path) is left as it is. Call it after
/// `nvshmemx_cumodule_init` and before any kernel of the module runs.
pub(crate) fn set_up(nvshmem: &Nvshmem, module: CUmodule, ptx: &str) -> Result<SignalAdds, Error> {
    if !ptx.contains(MAPPED_SIGNAL_ADDS_SYMBOL) {
        return Ok(SignalAdds::NoLoadStorePath);
    }
    let (switch, bytes) = global(module, MAPPED_SIGNAL_ADDS_SYMBOL)?;
    if bytes != size_of::<u32>() {
        return Err(ModuleError::GlobalLayout {
            symbol: MAPPED_SIGNAL_ADDS_SYMBOL,
            bytes,
            expected: size_of::<u32>(),
        }
        .into());
    }
    let (address, state_bytes) = global(module, DEVICE_STATE_SYMBOL)?;
    let mut state = vec![0u8; state_bytes];
    // SAFETY: `address` holds `state_bytes` bytes, which `nvshmemx_cumodule_init` has written.
    unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut state, address) }
        .doing(format!("reading the module's {DEVICE_STATE_SYMBOL}"))?;
    match decide(nvshmem.version(), &state, nvshmem.my_pe(), nvshmem.n_pes()) {
        Ok(()) => {
            // SAFETY: `switch` holds a `u32` (its size checked above); no kernel of the module
            // has run yet.
            unsafe { cudarc::driver::result::memcpy_htod_sync(switch, &[1u32]) }
                .doing(format!("writing the module's {MAPPED_SIGNAL_ADDS_SYMBOL}"))?;
            log::debug!(
                "PE {}: signal additions to mapped peers use the GPU's atomics",
                nvshmem.my_pe()
            );
            Ok(SignalAdds::Mapped)
        }
        Err(why) => {
            log::debug!(
                "PE {}: signal additions to mapped peers go through NVSHMEM: {why}",
                nvshmem.my_pe()
            );
            Ok(SignalAdds::Nvshmem(why.to_string()))
        }
    }
}

/// The address and size of the module global `symbol`.
fn global(
    module: CUmodule,
    symbol: &str,
) -> Result<(cudarc::driver::sys::CUdeviceptr, usize), Error> {
    let name = CString::new(symbol).expect("no NUL in the symbol name");
    // SAFETY: `module` is a loaded module (the caller's).
    unsafe { cudarc::driver::result::module::get_global(module, name) }
        .doing(format!("finding {symbol} in the module"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_sys::{
        NVSHMEMI_JOB_GPU_LDST, NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS,
        NVSHMEMI_JOB_GPU_PROXY, NVSHMEMI_JOB_GPU_PROXY_CST, nvshmemi_device_host_state_v1,
    };
    use std::mem::offset_of;

    const V345: Version = CHECKED[0].release;
    const V380: Version = CHECKED[1].release;

    /// The device state of `release` for PE 1 of 4 with `connectivity`.
    fn state(release: usize, connectivity: u32) -> Vec<u8> {
        let mut state = vec![0u8; CHECKED[release].state_bytes];
        for (at, value) in [
            (MYPE, 1),
            (NPES, 4),
            (JOB_CONNECTIVITY, connectivity as i32),
        ] {
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
        assert_eq!(size_of::<State>(), CHECKED[1].state_bytes);
        assert_eq!(CHECKED[1].le_ids, Some(offset_of!(State, unicast_le_ids_)));
        assert_eq!(
            LOAD_STORE_JOBS,
            [
                NVSHMEMI_JOB_GPU_LDST_ATOMICS as i32,
                NVSHMEMI_JOB_GPU_LDST as i32
            ]
        );
    }

    #[test]
    fn load_store_jobs_of_a_checked_release_add_through_the_mapping() {
        for (release, checked) in CHECKED.iter().enumerate() {
            for connectivity in [NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST] {
                let state = state(release, connectivity);
                assert_eq!(decide(checked.release, &state, 1, 4), Ok(()));
            }
        }
    }

    #[test]
    fn proxied_jobs_hand_additions_to_nvshmem() {
        for connectivity in [
            NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS,
            NVSHMEMI_JOB_GPU_PROXY,
            NVSHMEMI_JOB_GPU_PROXY_CST,
            0,
        ] {
            assert_eq!(
                decide(V380, &state(1, connectivity), 1, 4),
                Err(Delegated::NotAllMapped {
                    connectivity: connectivity as i32
                })
            );
        }
    }

    #[test]
    fn logical_endpoints_hand_additions_to_nvshmem() {
        let mut with_endpoints = state(1, NVSHMEMI_JOB_GPU_LDST_ATOMICS);
        let at = CHECKED[1].le_ids.unwrap();
        with_endpoints[at..at + 8].copy_from_slice(&0x7f00_1234_0000u64.to_ne_bytes());
        assert_eq!(
            decide(V380, &with_endpoints, 1, 4),
            Err(Delegated::LogicalEndpoints)
        );
    }

    #[test]
    fn an_unchecked_release_hands_additions_to_nvshmem() {
        for release in [
            Version {
                major: 3,
                minor: 4,
                patch: 6,
            },
            Version {
                major: 3,
                minor: 9,
                patch: 0,
            },
            Version {
                major: 4,
                minor: 0,
                patch: 0,
            },
        ] {
            let why = decide(release, &state(1, 1), 1, 4).unwrap_err();
            assert_eq!(why, Delegated::UncheckedRelease(release));
            assert!(why.to_string().contains(&release.to_string()), "{why}");
        }
    }

    #[test]
    fn a_state_of_another_size_or_content_hands_additions_to_nvshmem() {
        assert_eq!(
            decide(V345, &state(1, 1), 1, 4),
            Err(Delegated::StateSize {
                bytes: 848,
                expected: 776
            })
        );
        assert_eq!(
            decide(V380, &state(0, 1), 1, 4),
            Err(Delegated::StateSize {
                bytes: 776,
                expected: 848
            })
        );
        // A field inserted before `mype` would shift the PE number and count.
        let mut shifted = vec![0u8; 4];
        shifted.extend_from_slice(&state(0, 1)[..772]);
        assert_eq!(
            decide(V345, &shifted, 1, 4),
            Err(Delegated::StateDisagrees { mype: 0, npes: 1 })
        );
        assert!(decide(V345, &state(0, 1), 2, 4).is_err());
        assert!(decide(V345, &state(0, 1), 1, 8).is_err());
    }
}
