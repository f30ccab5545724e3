//! How NVSHMEM reaches the job's PEs, as its device state records it, and which atomics that lets
//! the load/store path issue itself.
//!
//! NVSHMEM's host library sets `job_connectivity` in the device state (`nvshmemi_device_state_d`)
//! to the weakest link between any two PEs of the job: `NVSHMEMI_JOB_GPU_LDST_ATOMICS` (1) when
//! every peer is mapped with native atomics, `NVSHMEMI_JOB_GPU_LDST` (2) when mapped without them
//! (PCIe peers), and larger values when some peer is reached through the proxy or a network. Its
//! device code applies an atomic to a mapped peer's word with the GPU's own system-scope atomic only
//! up to `NVSHMEMI_JOB_GPU_LDST`; above it, every atomic goes through the proxy or network, so that
//! all atomics on a word, from any PE, are atomic with each other. An atomic issued through the
//! mapping beside them would not be, and updates would be lost.

/// The byte offset of `job_connectivity` in NVSHMEM 3.4.5's device state
/// (`nvshmemi_device_host_state_v1`): it follows eight `int`s (`version` … `atomics_sync`).
pub(crate) const JOB_CONNECTIVITY_OFFSET: usize = 32;

/// `NVSHMEMI_JOB_GPU_LDST`: the weakest connectivity at which NVSHMEM issues atomics through the
/// peer mapping.
pub(crate) const JOB_GPU_LDST: i32 = 2;

/// Whether an atomic on a mapped peer's word may be this thread's own system-scope atomic, given
/// the job's `job_connectivity`: NVSHMEM's own rule (`nvshmemi_signal_op`).
#[inline(always)]
pub(crate) const fn atomics_through_mapping(job_connectivity: i32) -> bool {
    job_connectivity <= JOB_GPU_LDST
}

/// The job's connectivity, read from NVSHMEM's device state (constant for a launch: the host
/// writes it before any kernel runs).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn job_connectivity() -> i32 {
    let value: i32;
    // SAFETY: a load from NVSHMEM's device state, which every kernel linked by nvshmem-builder
    // defines in constant memory; the field lies inside it.
    unsafe {
        core::arch::asm!(
            "ld.const.s32 {value}, [nvshmemi_device_state_d+{offset}];",
            value = out(reg32) value,
            offset = const JOB_CONNECTIVITY_OFFSET,
            options(pure, readonly, nostack),
        );
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_sys::{
        NVSHMEMI_JOB_GPU_LDST, NVSHMEMI_JOB_GPU_LDST_ATOMICS, NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS,
        NVSHMEMI_JOB_GPU_PROXY, NVSHMEMI_JOB_GPU_PROXY_CST, nvshmemi_device_host_state_v1,
    };

    #[test]
    fn the_field_and_threshold_are_nvshmems() {
        assert_eq!(
            JOB_CONNECTIVITY_OFFSET,
            core::mem::offset_of!(nvshmemi_device_host_state_v1, job_connectivity)
        );
        assert_eq!(JOB_GPU_LDST, NVSHMEMI_JOB_GPU_LDST as i32);
    }

    #[test]
    fn only_load_store_jobs_add_through_the_mapping() {
        assert!(atomics_through_mapping(
            NVSHMEMI_JOB_GPU_LDST_ATOMICS as i32
        ));
        assert!(atomics_through_mapping(NVSHMEMI_JOB_GPU_LDST as i32));
        for proxied in [
            NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS,
            NVSHMEMI_JOB_GPU_PROXY,
            NVSHMEMI_JOB_GPU_PROXY_CST,
        ] {
            assert!(
                !atomics_through_mapping(proxied as i32),
                "connectivity {proxied} must leave atomics to NVSHMEM"
            );
        }
    }
}
