//! The check that a module whose NVSHMEM code was compiled for the proxy transport alone
//! (`nvshmem-builder`'s default, which marks it with [`PINNED_DEVICE_TRANSPORT_SYMBOL`]) runs
//! where NVSHMEM selected the proxy. In a job where NVSHMEM set up IBGDA or GDAKI instead, its
//! transfers would still take the proxy's path, which no host thread serves there, so such a
//! module is refused at load with the fix; and so is one whose job's choice cannot be read.

use crate::device_state::{self, DeviceState};
use crate::{Error, ModuleError, Nvshmem};
use cudarc::driver::sys::CUmodule;
use nvshmem_abi::{PINNED_DEVICE_TRANSPORT_SYMBOL, PROXY_DEVICE_TRANSPORT as PROXY};
use nvshmem_locate::Version;

/// Refuses a module pinned to the proxy transport where NVSHMEM selected another one, or where its
/// choice cannot be read; other modules pass. Call it after `nvshmemx_cumodule_init`.
pub(crate) fn check(nvshmem: &Nvshmem, module: CUmodule, ptx: &str) -> Result<(), Error> {
    if !ptx.contains(PINNED_DEVICE_TRANSPORT_SYMBOL) {
        return Ok(());
    }
    let state = device_state::read(module)?;
    decide(nvshmem.version(), &state, nvshmem.my_pe(), nvshmem.n_pes())?;
    log::debug!(
        "PE {}: the kernels' NVSHMEM code is compiled for the proxy transport, which NVSHMEM \
         selected",
        nvshmem.my_pe()
    );
    Ok(())
}

/// Whether a module pinned to the proxy may run in PE `my_pe` of `n_pes`, whose NVSHMEM `release`
/// filled the device state `state`.
fn decide(release: Version, state: &[u8], my_pe: i32, n_pes: i32) -> Result<(), ModuleError> {
    let unverified = |why: String| ModuleError::PinnedTransportUnverified { why };
    let offset = nvshmem_abi::pinnable_offset((release.major, release.minor, release.patch))
        .ok_or_else(|| unverified(format!("NVSHMEM {release}'s layout was not checked")))?;
    let state = DeviceState::checked(release, state, my_pe, n_pes)
        .map_err(|why| unverified(why.to_string()))?;
    match state.int(offset) {
        PROXY => Ok(()),
        selected => Err(ModuleError::PinnedTransportMismatch { selected }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_state::tests::{V345, V380, state};
    use nvshmem_abi::PINNABLE_RELEASES;
    use nvshmem_sys::{
        NVSHMEMI_DEVICE_TRANSPORT_TYPE_GPUNETIO_GDAKI, NVSHMEMI_DEVICE_TRANSPORT_TYPE_IBGDA,
        NVSHMEMI_DEVICE_TRANSPORT_TYPE_PROXY, nvshmemi_device_host_state_v1,
    };
    use std::mem::offset_of;

    #[test]
    fn the_field_and_values_are_nvshmems() {
        // The bindings are 3.8.0's.
        assert_eq!(
            PINNABLE_RELEASES,
            [(
                (3, 8, 0),
                offset_of!(nvshmemi_device_host_state_v1, selected_device_transport)
            )]
        );
        assert_eq!(PROXY, NVSHMEMI_DEVICE_TRANSPORT_TYPE_PROXY as i32);
    }

    #[test]
    fn a_job_on_the_proxy_runs_a_pinned_module() {
        assert!(decide(V380, &state(1, &[]), 1, 4).is_ok());
    }

    #[test]
    fn a_job_on_ibgda_or_gdaki_refuses_it_and_says_how_to_build() {
        let offset = PINNABLE_RELEASES[0].1;
        for transport in [
            NVSHMEMI_DEVICE_TRANSPORT_TYPE_IBGDA,
            NVSHMEMI_DEVICE_TRANSPORT_TYPE_GPUNETIO_GDAKI,
        ] {
            let error = decide(V380, &state(1, &[(offset, transport as i32)]), 1, 4).unwrap_err();
            assert!(
                matches!(error, ModuleError::PinnedTransportMismatch { selected } if selected == transport as i32)
            );
            let message = error.to_string();
            assert!(
                message.contains("NVSHMEMRS_DEVICE_TRANSPORTS=all"),
                "{message}"
            );
        }
    }

    #[test]
    fn a_choice_that_cannot_be_read_refuses_it() {
        // 3.4.5's device code is never pinned, so its layout does not name the field.
        for (release, bytes, my_pe) in [
            (V345, state(0, &[]), 1),
            (V380, state(0, &[]), 1),
            (V380, state(1, &[]), 2),
        ] {
            let error = decide(release, &bytes, my_pe, 4).unwrap_err();
            assert!(
                matches!(error, ModuleError::PinnedTransportUnverified { .. }),
                "{error:?}"
            );
            assert!(
                error
                    .to_string()
                    .contains("NVSHMEMRS_DEVICE_TRANSPORTS=all")
            );
        }
    }
}
