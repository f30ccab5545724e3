//! The module globals that the host finds by name in a loaded module, and the layout of the device
//! checks' settings.

/// The name of the device checks' settings global (a [`DeviceChecks`]), which only modules built
/// with `nvshmem-gpu`'s `checks` feature define; `nvshmem-builder` keeps it visible and
/// `nvshmem-host` fills it when it loads the module.
pub const DEVICE_CHECKS_SYMBOL: &str = "NVSHMEMRS_DEVICE_CHECKS";

/// The name of the module global (a `u32`) that says whether the load/store path may add to a
/// mapped peer's signal word itself (non-zero) or hands additions to NVSHMEM (0, its initial value).
/// Only modules built with the load/store path define it; `nvshmem-builder` keeps it visible and
/// `nvshmem-host` sets it.
pub const MAPPED_SIGNAL_ADDS_SYMBOL: &str = "NVSHMEMRS_MAPPED_SIGNAL_ADDS";

/// The name of the module global (an `i32`, NVSHMEM's `NVSHMEMI_DEVICE_TRANSPORT_TYPE_PROXY`) that
/// `nvshmem-builder` adds to a module whose NVSHMEM device code it compiled for the proxy transport
/// alone ([`PINNABLE_RELEASES`]); `nvshmem-host` then refuses to load the module in a job where
/// NVSHMEM selected another device transport (IBGDA, GDAKI).
pub const PINNED_DEVICE_TRANSPORT_SYMBOL: &str = "NVSHMEMRS_PINNED_DEVICE_TRANSPORT";

/// The NVSHMEM releases whose device code `nvshmem-builder` may compile for the proxy transport
/// alone, as `(major, minor, patch)` and the byte offset of `selected_device_transport` in their
/// device state (`nvshmemi_device_host_state_v1`), where the device code reads which transport to
/// use and the host reads which one NVSHMEM selected. Only releases whose device code switches on
/// that field, and was checked to, are listed.
pub const PINNABLE_RELEASES: [((u32, u32, u32), usize); 1] = [((3, 8, 0), 772)];

/// NVSHMEM's `NVSHMEMI_DEVICE_TRANSPORT_TYPE_PROXY`, the same in every release of
/// [`PINNABLE_RELEASES`]: the transport a pinned module's NVSHMEM code always takes, and the one
/// NVSHMEM must have selected for the host to load it.
pub const PROXY_DEVICE_TRANSPORT: i32 = 0;

/// The byte offset of `selected_device_transport` in the device state of NVSHMEM `release`
/// (`(major, minor, patch)`), if its device code may be pinned ([`PINNABLE_RELEASES`]).
pub fn pinnable_offset(release: (u32, u32, u32)) -> Option<usize> {
    PINNABLE_RELEASES
        .iter()
        .find(|(pinnable, _)| *pinnable == release)
        .map(|(_, offset)| *offset)
}

/// The time limit of a module whose loader did not set one: generous, so that only a real hang
/// hits it.
pub const DEFAULT_TIMEOUT_NS: u64 = 60_000_000_000;

/// The settings of a module's device checks, three 8-byte words, in the global named
/// [`DEVICE_CHECKS_SYMBOL`].
///
/// ```
/// use nvshmem_abi::DeviceChecks;
/// assert_eq!(size_of::<DeviceChecks>(), 24);
/// assert_eq!(core::mem::offset_of!(DeviceChecks, scratch), 8);
/// assert_eq!(core::mem::offset_of!(DeviceChecks, slots), 16);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DeviceChecks {
    /// How long a wait or handshake may last, in nanoseconds of `%globaltimer`.
    pub timeout_ns: u64,
    /// `slots × 2 × n_pes()` zeroed symmetric words: `arrivals[slot][pe]` then
    /// `consumed[slot][pe]` for each slot; null when the host did not allocate them.
    pub scratch: *mut u64,
    /// How many team handles (`0..slots`) have a slot; teams beyond skip the handshake.
    pub slots: u32,
    /// Keeps the layout three whole words.
    pub reserved: u32,
}
