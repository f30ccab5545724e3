//! Whether the load/store path may add to a mapped peer's signal word itself, which the host decides
//! when it loads the module.
//!
//! All additions to one word must be atomic with each other. NVSHMEM applies a signal addition to a
//! mapped peer with the GPU's own system-scope atomic only when every PE of the job reaches every
//! other with loads and stores (`job_connectivity` in its device state at most
//! `NVSHMEMI_JOB_GPU_LDST`); otherwise every addition goes through its proxy or network transport.
//! An addition through the mapping beside those would not be atomic with them, updates would be
//! lost, and a wait for the sum would hang. So the path adds through the mapping only where the
//! module's [`nvshmem_abi::MAPPED_SIGNAL_ADDS_SYMBOL`] global says the host has established that NVSHMEM would
//! too, and otherwise hands the addition to `nvshmemx_signal_op`, which is right in every job.
//!
//! The global starts at 0, "hand additions to NVSHMEM", so a module loaded by other code, or by a
//! host that cannot vouch for the NVSHMEM release, is correct and only slower. `nvshmem-host` sets
//! it to 1 when the release's device code is one whose `nvshmemi_signal_op` it was checked against
//! (3.4.5, 3.8.0), the job's `job_connectivity`, read from the module's device state at that
//! release's layout, allows it, and (3.8.0) NVSHMEM has no logical endpoints that could carry
//! additions instead (its `mapped_signal_adds.rs` holds the rule and its tests).
//! Signal sets always go through the mapping, as NVSHMEM's do: a store needs no atomicity.

/// The global named by [`nvshmem_abi::MAPPED_SIGNAL_ADDS_SYMBOL`].
#[cfg(all(target_arch = "nvptx64", not(feature = "nvshmem-only")))]
#[unsafe(no_mangle)]
static mut NVSHMEMRS_MAPPED_SIGNAL_ADDS: u32 = 0;

/// Whether a signal addition to a mapped peer's word may be this thread's own system-scope atomic
/// (constant for a launch: the host writes the global before any kernel of the module runs).
#[cfg(all(target_arch = "nvptx64", not(feature = "nvshmem-only")))]
#[inline(always)]
pub(crate) fn mapped_signal_adds() -> bool {
    // SAFETY: a read of the module's own global, which only the host writes, before any launch.
    unsafe { (&raw const NVSHMEMRS_MAPPED_SIGNAL_ADDS).read() != 0 }
}
