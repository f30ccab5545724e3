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
//! Both fields live in NVSHMEM's device state, read as `device_state` allows; where it cannot be
//! trusted, and in every other case, the global stays 0 and NVSHMEM applies every addition:
//! slower, never wrong.

use crate::device_state::{self, DeviceState, JOB_CONNECTIVITY, Untrusted};
use crate::error::DriverErrorContext as _;
use crate::{Error, ModuleError, Nvshmem};
use cudarc::driver::sys::CUmodule;
use nvshmem_abi::MAPPED_SIGNAL_ADDS_SYMBOL;
use nvshmem_locate::Version;
use std::fmt;

/// `NVSHMEMI_JOB_GPU_LDST_ATOMICS` and `NVSHMEMI_JOB_GPU_LDST`: the connectivities at which
/// NVSHMEM adds through the mapping.
const LOAD_STORE_JOBS: [i32; 2] = [1, 2];

/// Why a module hands signal additions to NVSHMEM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delegated {
    /// The device state cannot be read for the decision.
    Untrusted(Untrusted),
    /// NVSHMEM's logical endpoints may carry some additions.
    LogicalEndpoints,
    /// Some PE reaches another only through the proxy or the network.
    NotAllMapped {
        /// The job's `job_connectivity`.
        connectivity: i32,
    },
}

impl fmt::Display for Delegated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delegated::Untrusted(why) => write!(f, "{why}"),
            Delegated::LogicalEndpoints => write!(
                f,
                "NVSHMEM was built with logical endpoints (CFT handles), which may carry additions"
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
    let state = DeviceState::checked(release, state, my_pe, n_pes).map_err(Delegated::Untrusted)?;
    if state.has_logical_endpoints() {
        return Err(Delegated::LogicalEndpoints);
    }
    let connectivity = state.int(JOB_CONNECTIVITY);
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
    let (switch, bytes) = device_state::global(module, MAPPED_SIGNAL_ADDS_SYMBOL)?;
    if bytes != size_of::<u32>() {
        return Err(ModuleError::GlobalLayout {
            symbol: MAPPED_SIGNAL_ADDS_SYMBOL,
            bytes,
            expected: size_of::<u32>(),
        }
        .into());
    }
    let state = device_state::read(module)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_state::tests::{V345, V380, state};
    use crate::device_state::{JOB_CONNECTIVITY, LAYOUTS};
    use nvshmem_sys::{
        NVSHMEMI_JOB_GPU_LDST, NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS,
        NVSHMEMI_JOB_GPU_PROXY, NVSHMEMI_JOB_GPU_PROXY_CST,
    };

    fn with_connectivity(layout: usize, connectivity: u32) -> Vec<u8> {
        state(layout, &[(JOB_CONNECTIVITY, connectivity as i32)])
    }

    #[test]
    fn the_load_store_connectivities_are_nvshmems() {
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
        for (index, layout) in LAYOUTS.iter().enumerate() {
            for connectivity in [NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST] {
                let state = with_connectivity(index, connectivity);
                assert_eq!(decide(layout.release, &state, 1, 4), Ok(()));
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
                decide(V380, &with_connectivity(1, connectivity), 1, 4),
                Err(Delegated::NotAllMapped {
                    connectivity: connectivity as i32
                })
            );
        }
    }

    #[test]
    fn logical_endpoints_hand_additions_to_nvshmem() {
        let mut with_endpoints = with_connectivity(1, NVSHMEMI_JOB_GPU_LDST_ATOMICS);
        let at = LAYOUTS[1].le_ids.unwrap();
        with_endpoints[at..at + 8].copy_from_slice(&0x7f00_1234_0000u64.to_ne_bytes());
        assert_eq!(
            decide(V380, &with_endpoints, 1, 4),
            Err(Delegated::LogicalEndpoints)
        );
    }

    #[test]
    fn an_untrusted_state_hands_additions_to_nvshmem() {
        let release = Version {
            major: 3,
            minor: 9,
            patch: 0,
        };
        let why = decide(release, &with_connectivity(1, 1), 1, 4).unwrap_err();
        assert_eq!(
            why,
            Delegated::Untrusted(Untrusted::UncheckedRelease(release))
        );
        assert!(why.to_string().contains("3.9.0"), "{why}");
        assert!(matches!(
            decide(V345, &with_connectivity(1, 1), 1, 4),
            Err(Delegated::Untrusted(Untrusted::StateSize { .. }))
        ));
        assert!(matches!(
            decide(V345, &with_connectivity(0, 1), 2, 4),
            Err(Delegated::Untrusted(Untrusted::StateDisagrees { .. }))
        ));
    }
}
