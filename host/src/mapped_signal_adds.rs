//! Whether a loaded module's load/store path may add to mapped peers' signal words with its own
//! atomics, or must hand every addition to NVSHMEM (`nvshmem-gpu`'s `NVSHMEMRS_MAPPED_SIGNAL_ADDS`;
//! its `peer/connectivity.rs` says why it matters).
//!
//! NVSHMEM adds through the mapping itself (`nvshmemi_signal_op`) exactly when the job's
//! `job_connectivity` is at most `NVSHMEMI_JOB_GPU_LDST` (every PE maps every other), in the
//! device code of the releases checked here: 3.4.5, and 3.8.0 as its packages build it, without
//! `NVSHMEM_CFT_HANDLES_SUPPORT` (with it and `NVSHMEM_PRIORITIZE_LOGICAL_ENDPOINT`, 3.8 sends some
//! additions through logical-endpoint handles; a source build so configured has the same release
//! number, which is why the allowance is this crate's release list, not a rule for any 3.x).
//! `job_connectivity` lives in NVSHMEM's device state (`nvshmemi_device_state_d`), an internal
//! structure: the host reads it from the module, after `nvshmemx_cumodule_init` filled it, only
//! for a release whose layout it knows, and only trusts it when the structure has that release's
//! size and its own PE number and PE count where the layout puts them. Every other case leaves the
//! global at 0, and NVSHMEM applies every addition: slower, never wrong.

use crate::error::CudaContext as _;
use crate::{Error, Nvshmem};
use cudarc::driver::sys::CUmodule;
use nvshmem_gpu::MAPPED_SIGNAL_ADDS_SYMBOL;
use nvshmem_locate::Version;
use std::ffi::CString;
use std::fmt;

/// NVSHMEM's device state global, which `nvshmemx_cumodule_init` fills.
const DEVICE_STATE_SYMBOL: &str = "nvshmemi_device_state_d";

/// The releases whose `nvshmemi_signal_op` and device-state layout were checked, with the size of
/// their `nvshmemi_device_host_state_v1` (the `static_assert` beside it in `nvshmem_types.h`).
const CHECKED: [(Version, usize); 2] = [
    (
        Version {
            major: 3,
            minor: 4,
            patch: 5,
        },
        776,
    ),
    (
        Version {
            major: 3,
            minor: 8,
            patch: 0,
        },
        848,
    ),
];

/// The device state's leading `int`s, the same in every checked release: `version`, `mype`,
/// `npes`, `node_mype`, `node_npes`, `pe_dist`, `proxy`, `atomics_sync`, `job_connectivity`.
type StateHead = [i32; 9];
/// Indices into [`StateHead`].
const MYPE: usize = 1;
const NPES: usize = 2;
const JOB_CONNECTIVITY: usize = 8;

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
/// state has `state_bytes` bytes and starts with `head`, in PE `my_pe` of a job of `n_pes` PEs.
pub(crate) fn decide(
    release: Version,
    state_bytes: usize,
    head: &StateHead,
    my_pe: i32,
    n_pes: i32,
) -> Result<(), Delegated> {
    let Some(&(_, expected)) = CHECKED.iter().find(|(checked, _)| *checked == release) else {
        return Err(Delegated::UncheckedRelease(release));
    };
    if state_bytes != expected {
        return Err(Delegated::StateSize {
            bytes: state_bytes,
            expected,
        });
    }
    if (head[MYPE], head[NPES]) != (my_pe, n_pes) {
        return Err(Delegated::StateDisagrees {
            mype: head[MYPE],
            npes: head[NPES],
        });
    }
    if !LOAD_STORE_JOBS.contains(&head[JOB_CONNECTIVITY]) {
        return Err(Delegated::NotAllMapped {
            connectivity: head[JOB_CONNECTIVITY],
        });
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
        return Err(Error::ModuleGlobalLayout {
            symbol: MAPPED_SIGNAL_ADDS_SYMBOL,
            bytes,
            expected: size_of::<u32>(),
        });
    }
    let (state, state_bytes) = global(module, DEVICE_STATE_SYMBOL)?;
    let mut head: StateHead = [0; 9];
    if state_bytes >= size_of::<StateHead>() {
        // SAFETY: `state` holds at least `size_of::<StateHead>()` bytes (checked above), and
        // `nvshmemx_cumodule_init` has written them.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut head, state) }
            .doing(format!("reading the module's {DEVICE_STATE_SYMBOL}"))?;
    }
    match decide(
        nvshmem.version(),
        state_bytes,
        &head,
        nvshmem.my_pe(),
        nvshmem.n_pes(),
    ) {
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

    const V345: Version = CHECKED[0].0;
    const V380: Version = CHECKED[1].0;

    /// A device state head of PE 1 of 4 with `connectivity`.
    fn head(connectivity: u32) -> StateHead {
        [0, 1, 4, 1, 4, 0, 0, 0, connectivity as i32]
    }

    #[test]
    fn the_layout_is_nvshmems() {
        // The bindings are 3.8.0's; 3.4.5's structure is the same up to its end (3.8 appended).
        let field = |offset: usize| offset / size_of::<i32>();
        assert_eq!(field(offset_of!(nvshmemi_device_host_state_v1, mype)), MYPE);
        assert_eq!(field(offset_of!(nvshmemi_device_host_state_v1, npes)), NPES);
        assert_eq!(
            field(offset_of!(nvshmemi_device_host_state_v1, job_connectivity)),
            JOB_CONNECTIVITY
        );
        assert_eq!(
            offset_of!(nvshmemi_device_host_state_v1, job_connectivity) + size_of::<i32>(),
            size_of::<StateHead>()
        );
        assert_eq!(size_of::<nvshmemi_device_host_state_v1>(), CHECKED[1].1);
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
        for (release, bytes) in CHECKED {
            for connectivity in [NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST] {
                assert_eq!(decide(release, bytes, &head(connectivity), 1, 4), Ok(()));
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
                decide(V380, 848, &head(connectivity), 1, 4),
                Err(Delegated::NotAllMapped {
                    connectivity: connectivity as i32
                })
            );
        }
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
            let why = decide(release, 848, &head(1), 1, 4).unwrap_err();
            assert_eq!(why, Delegated::UncheckedRelease(release));
            assert!(why.to_string().contains(&release.to_string()), "{why}");
        }
    }

    #[test]
    fn a_state_of_another_size_or_content_hands_additions_to_nvshmem() {
        assert_eq!(
            decide(V345, 848, &head(1), 1, 4),
            Err(Delegated::StateSize {
                bytes: 848,
                expected: 776
            })
        );
        assert_eq!(
            decide(V380, 776, &head(1), 1, 4),
            Err(Delegated::StateSize {
                bytes: 776,
                expected: 848
            })
        );
        // A field inserted before `mype` would shift the PE number and count.
        let shifted = [0, 0, 1, 4, 1, 4, 0, 0, 1];
        assert_eq!(
            decide(V345, 776, &shifted, 1, 4),
            Err(Delegated::StateDisagrees { mype: 0, npes: 1 })
        );
        assert!(decide(V345, 776, &head(1), 2, 4).is_err());
        assert!(decide(V345, 776, &head(1), 1, 8).is_err());
    }
}
