//! What can go wrong while loading a PTX module and finding its kernels.

use std::fmt;

/// A PTX module cannot be loaded or used ([`crate::Nvshmem::load_module`], [`crate::Module`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum ModuleError {
    /// The device code was linked against an NVSHMEM the host library cannot serve.
    VersionMismatch {
        /// The device bitcode's version (from the module's `nvshmemi_device_lib_version_d`).
        device: nvshmem_locate::Version,
        /// The host library's version.
        host: nvshmem_locate::Version,
    },
    /// The PTX text contains a NUL byte.
    PtxContainsNul,
    /// The PTX lacks `nvshmemi_device_lib_version_d`: it was not linked with NVSHMEM's device library.
    NotAnNvshmemModule,
    /// A global that this crate writes into a loaded module (`NVSHMEMRS_DEVICE_CHECKS`,
    /// `NVSHMEMRS_MAPPED_SIGNAL_ADDS`) is not the size it writes: the kernels were built with
    /// another `nvshmem-gpu`.
    GlobalLayout {
        /// The global's name.
        symbol: &'static str,
        /// Its size in the module.
        bytes: usize,
        /// The size this crate writes.
        expected: usize,
    },
    /// The module's NVSHMEM code was compiled for the proxy transport alone, and NVSHMEM selected
    /// another device transport for this job.
    PinnedTransportMismatch {
        /// NVSHMEM's `selected_device_transport` (1: IBGDA, 2: GDAKI).
        selected: i32,
    },
    /// The module's NVSHMEM code was compiled for the proxy transport alone, and which transport
    /// NVSHMEM selected cannot be read.
    PinnedTransportUnverified {
        /// Why not.
        why: String,
    },
    /// The module stores no signature for a kernel that a typed launch asked for (or one this
    /// crate cannot read): it was not built by `#[kernel]` and nvshmem-builder of this release.
    SignatureMissing {
        /// The kernel.
        kernel: String,
    },
    /// A typed launch's descriptor comes from another kernel crate, or another version of it,
    /// than the loaded module's kernel of the same name.
    KernelFromAnotherCrate {
        /// The kernel.
        kernel: String,
        /// The descriptor's crate, `name@version`.
        descriptor: String,
        /// The module's crate, `name@version`.
        module: String,
    },
    /// The host build of a kernel crate (the descriptor) and its device build (the loaded module)
    /// disagree on a kernel parameter's type.
    ParameterMismatch {
        /// The kernel.
        kernel: String,
        /// The parameter's index (0 for the first).
        index: usize,
        /// The parameter's name in the host build, or `None` where it has no such parameter.
        name: Option<String>,
        /// Its type in the host build, or `None` where it has no such parameter.
        host: Option<String>,
        /// Its type in the device build, or `None` where it has no such parameter.
        device: Option<String>,
    },
    /// The module has no kernel of that name.
    KernelNotFound {
        /// The name asked for.
        name: String,
        /// The kernels the module has.
        available: Vec<String>,
    },
}

impl fmt::Display for ModuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleError::VersionMismatch { device, host } => write!(
                f,
                "the kernels were linked with NVSHMEM {device} device code but the host library is \
                 NVSHMEM {host}; both must come from one release. Rebuild the kernels against the \
                 host library's release (NVSHMEM_HOME at build time) or point NVSHMEM_HOME at the \
                 NVSHMEM {device} install when running"
            ),
            ModuleError::PtxContainsNul => {
                write!(f, "the PTX text contains a NUL byte; it is not PTX")
            }
            ModuleError::NotAnNvshmemModule => write!(
                f,
                "the module has no nvshmemi_device_lib_version_d: it was not linked with NVSHMEM's \
                 device library; build it with nvshmem-builder"
            ),
            ModuleError::GlobalLayout {
                symbol,
                bytes,
                expected,
            } => write!(
                f,
                "the module's {symbol} has {bytes} bytes, not the {expected} this nvshmem-host \
                 writes: the kernels were built with another nvshmem-gpu; build them with the \
                 nvshmem-gpu of this nvshmem-host's release"
            ),
            ModuleError::PinnedTransportMismatch { selected } => write!(
                f,
                "the kernels' NVSHMEM code was compiled for its proxy transport alone \
                 (nvshmem-builder's default), but NVSHMEM selected {} for this job; rebuild the \
                 kernels with NVSHMEMRS_DEVICE_TRANSPORTS=all (or \
                 `.device_transports(DeviceTransports::All)` in build.rs), or run without it \
                 (NVSHMEM_IB_ENABLE_IBGDA unset)",
                match selected {
                    1 => "IBGDA".to_string(),
                    2 => "GDAKI".to_string(),
                    other => format!("device transport {other}"),
                }
            ),
            ModuleError::PinnedTransportUnverified { why } => write!(
                f,
                "the kernels' NVSHMEM code was compiled for its proxy transport alone \
                 (nvshmem-builder's default), and which transport NVSHMEM selected cannot be \
                 read ({why}); rebuild the kernels with NVSHMEMRS_DEVICE_TRANSPORTS=all (or \
                 `.device_transports(DeviceTransports::All)` in build.rs)"
            ),
            ModuleError::SignatureMissing { kernel } => write!(
                f,
                "the module stores no readable signature of kernel `{kernel}`, so a typed launch \
                 cannot check that its parameters are the descriptor's: build the kernel crate \
                 with #[kernel] and nvshmem-builder of this nvshmem-host's release, and load the \
                 module that build produced"
            ),
            ModuleError::KernelFromAnotherCrate {
                kernel,
                descriptor,
                module,
            } => write!(
                f,
                "the loaded module's kernel `{kernel}` was built from the kernel crate {module}, \
                 but the launch descriptor comes from {descriptor}: a descriptor launches only the \
                 module built from its own crate and version. Load the PTX that build of \
                 {descriptor} produced, or launch with the descriptor of {module}"
            ),
            ModuleError::ParameterMismatch {
                kernel,
                index,
                name,
                host,
                device,
            } => {
                let or_none = |ty: &Option<String>| {
                    ty.as_ref()
                        .map_or("no such parameter".to_string(), |ty| format!("`{ty}`"))
                };
                let name = name
                    .as_ref()
                    .map_or(String::new(), |name| format!(" `{name}`"));
                write!(
                    f,
                    "kernel `{kernel}`'s parameter {index}{name} is {} in the host build of its \
                     crate but {} in the loaded module (the device build): the launch would pass \
                     the one as the other. Give the parameter one type in every build (no type \
                     that depends on `cfg(target_arch)`, a cargo feature or `debug_assertions`, \
                     no kernel defined twice under `#[cfg]`), rebuild, and load the module built \
                     from this kernel crate",
                    or_none(host),
                    or_none(device)
                )
            }
            ModuleError::KernelNotFound { name, available } => write!(
                f,
                "the module has no kernel `{name}`; it has: {}. Kernels are the #[kernel] \
                 functions of the kernel crate",
                available.join(", ")
            ),
        }
    }
}

impl std::error::Error for ModuleError {}
