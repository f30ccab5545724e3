//! The host crate's error type. NVSHMEM has no error-string API, so every message here says what
//! failed and what to do about it.

use cudarc::driver::sys::CUresult;
use std::fmt;

/// One PE's symmetric allocation request, as the collective allocation check saw it (see
/// [`crate::allocation_check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationRequest {
    /// The PE.
    pub pe: i32,
    /// Its count of symmetric allocations so far, this one included.
    pub sequence: u64,
    /// The bytes it asked for.
    pub bytes: u64,
}

/// Everything that can go wrong on the host side.
#[derive(Debug)]
pub enum Error {
    /// NVSHMEM's host library could not be loaded (the message lists every path tried).
    Library(nvshmem_sys::LoadError),
    /// There is no NVIDIA driver (`libcuda.so.1`) on this machine.
    NoCudaDriver,
    /// The driver loaded but reports no GPU.
    NoGpu,
    /// This PE's GPU ordinal is beyond the visible GPUs.
    TooFewGpus {
        /// The ordinal this PE needs (local rank / PEs per GPU).
        ordinal: usize,
        /// The number of GPUs CUDA reports.
        visible: usize,
        /// The PEs per GPU in effect.
        pes_per_gpu: usize,
    },
    /// A CUDA driver call failed.
    Cuda {
        /// What was being done.
        action: String,
        /// The driver's error.
        error: cudarc::driver::DriverError,
    },
    /// An NVSHMEM call returned a non-zero status.
    Nvshmem {
        /// The call.
        call: &'static str,
        /// Its status code.
        status: i32,
        /// What to check.
        hint: &'static str,
    },
    /// NVSHMEM was already initialised in this process.
    AlreadyInitialized,
    /// None of the bootstrap plugins for the detected process manager can be loaded.
    NoBootstrapPlugin {
        /// Each plugin tried, and the loader's reason.
        failures: Vec<(String, String)>,
    },
    /// The launcher's environment (`NVSHMEMRS_*`) is inconsistent.
    PeEnvironment(nvshmem_pe_env::PeEnvError),
    /// An `NVSHMEM_*` variable holds a value NVSHMEM cannot read (see [`crate::environment`]).
    Environment(crate::environment::EnvironmentError),
    /// The unique-id exchange with PE 0 failed.
    Rendezvous(nvshmem_pe_env::rendezvous::RendezvousError),
    /// NVSHMEM started with a different PE number or count than the launcher assigned.
    PeMismatch {
        /// What the launcher assigned, `(pe, n_pes)`.
        expected: (i32, i32),
        /// What NVSHMEM reports.
        actual: (i32, i32),
    },
    /// NVSHMEM's initialisation returned success but only bootstrapped: it could not finish setting
    /// itself up (`nvshmemx_init_status` below `NVSHMEM_STATUS_IS_INITIALIZED`).
    InitIncomplete {
        /// The status NVSHMEM reports.
        status: crate::InitStatus,
        /// The transport settings in this PE's environment, `(variable, value)`, those set only.
        transport_settings: Vec<(&'static str, String)>,
    },
    /// The MPS server refused this client because it is in a failed state: a client died while its
    /// kernel ran (or a kernel faulted), and the server fails every later client until restarted.
    MpsFailed {
        /// What was being done.
        action: String,
        /// The driver's error.
        error: cudarc::driver::DriverError,
        /// How MPS was detected.
        mps: nvshmem_pe_env::mps::Mps,
    },
    /// The symmetric heap cannot hold a request: refused before `nvshmem_malloc` where the request
    /// does not fit beside the live buffers within what bounds the heap (NVSHMEM fails such a
    /// request by crashing), or `nvshmem_malloc` returned null where the heap is fixed (CUDA's
    /// virtual memory management off) or its bound unknown; below a cap it grows to, the error is
    /// [`Error::HeapGrowthFailed`].
    HeapExhausted {
        /// The bytes requested.
        bytes: usize,
        /// The bytes the handle's live buffers held at the request.
        in_use: usize,
        /// What bounds the heap; `None` where NVSHMEM's settings could not be read.
        bound: Option<crate::environment::HeapBound>,
    },
    /// `nvshmem_malloc` returned null for a request that the heap's cap can hold beside the live
    /// buffers with a granule to spare: NVSHMEM's own growth of the heap failed, not the cap.
    HeapGrowthFailed {
        /// The bytes requested.
        bytes: usize,
        /// The bytes the handle's live buffers held at the request.
        in_use: usize,
        /// The heap's cap (`NVSHMEM_MAX_MEMORY_PER_GPU`), not reached.
        cap: u64,
        /// The GPU's free memory just before the request.
        free: usize,
        /// The PEs sharing this PE's GPU.
        pes_per_gpu: usize,
        /// Whether MPS serves this machine.
        mps: bool,
    },
    /// The alignment asked of `nvshmem_align` is not a power of two or is below the type's.
    InvalidAlignment {
        /// The alignment asked for.
        alignment: usize,
        /// The element type's alignment.
        minimum: usize,
    },
    /// PEs asked for different symmetric allocations at the same point.
    AllocationMismatch {
        /// Every PE's request.
        requests: Vec<AllocationRequest>,
    },
    /// A symmetric allocation of zero elements was requested.
    EmptyAllocation,
    /// A host slice and a buffer differ in length.
    LengthMismatch {
        /// The buffer's length.
        buffer: usize,
        /// The slice's length.
        slice: usize,
    },
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
    ModuleGlobalLayout {
        /// The global's name.
        symbol: &'static str,
        /// Its size in the module.
        bytes: usize,
        /// The size this crate writes.
        expected: usize,
    },
    /// A symmetric buffer passed to a safe kernel was allocated with the allocation check off, so
    /// nothing established that every PE allocated it with the same size.
    UncheckedAllocation {
        /// The buffer's size in bytes.
        bytes: usize,
    },
    /// The module has no kernel of that name.
    KernelNotFound {
        /// The name asked for.
        name: String,
        /// The kernels the module has.
        available: Vec<String>,
    },
    /// A launch asked for more threads per block than the kernel can run with (its registers, or
    /// the GPU's limit of 1024).
    BlockTooLarge {
        /// The kernel.
        kernel: String,
        /// Threads per block requested.
        requested: u32,
        /// The most threads per block the kernel can run with.
        limit: u32,
        /// Registers per thread of the kernel.
        registers: u32,
    },
    /// A cooperative launch asked for more blocks than can be resident on the GPU at once.
    CooperativeGridTooLarge {
        /// Blocks requested.
        requested: u32,
        /// The most that can be co-resident: `blocks_per_sm × sms`.
        limit: u32,
        /// Resident blocks per multiprocessor at this block size.
        blocks_per_sm: u32,
        /// Multiprocessors on the GPU.
        sms: u32,
    },
    /// A file or folder operation failed.
    Io {
        /// What was being done.
        action: &'static str,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// Errors raised while dropping resources (module unload, finalize), reported later.
    Deferred(Vec<Error>),
    /// A team split asked for PEs the parent team does not have.
    InvalidTeamSplit {
        /// The split asked for, in words (`start 0, stride 2, size 3`).
        request: String,
        /// The number of PEs in the parent team.
        parent_size: i32,
    },
    /// A PE number outside `0..n_pes` of its team.
    InvalidPe {
        /// The PE number given.
        pe: i32,
        /// The number of PEs in the team it was meant for.
        n_pes: i32,
    },
    /// A symmetric buffer holds fewer elements than an operation needs.
    BufferTooShort {
        /// Which argument (`dest`, `source`, `signal`).
        buffer: &'static str,
        /// Its length, in elements.
        len: usize,
        /// The elements the operation needs.
        needed: usize,
    },
    /// Bytes meant as a unique id have the wrong length.
    UniqueIdLength {
        /// The bytes given.
        found: usize,
        /// The bytes of an id.
        expected: usize,
    },
    /// Bytes meant as a unique id lack NVSHMEM's version word for the layout.
    UniqueIdVersion {
        /// The word the bytes start with.
        found: i32,
        /// The word NVSHMEM's ids start with.
        expected: i32,
    },
    /// The loaded NVSHMEM host library lacks a function this crate needs for the call.
    MissingSymbol {
        /// The function.
        symbol: &'static str,
        /// The loaded library's release.
        version: nvshmem_locate::Version,
    },
    /// A CUDA stream or memory of another context was passed where NVSHMEM's is needed.
    ForeignContext {
        /// What was passed (`the stream`, `the allocation`).
        what: &'static str,
        /// The GPU of its context.
        gpu: usize,
        /// The GPU of NVSHMEM's context.
        nvshmem_gpu: usize,
    },
    /// A graph capture was asked of the legacy default stream, which CUDA cannot capture.
    CaptureOnLegacyStream,
    /// A capture ended without a graph.
    EmptyCapture,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Library(error) => write!(f, "{error}"),
            Error::NoCudaDriver => write!(
                f,
                "no NVIDIA driver: libcuda.so.1 could not be loaded. This machine has no NVIDIA GPU \
                 or driver; run on a GPU machine (or check that the driver's libraries are on the \
                 loader path)"
            ),
            Error::NoGpu => write!(
                f,
                "the NVIDIA driver reports no GPU; check CUDA_VISIBLE_DEVICES and `nvidia-smi`"
            ),
            Error::TooFewGpus {
                ordinal,
                visible,
                pes_per_gpu,
            } => write!(
                f,
                "this PE needs GPU {ordinal} ({pes_per_gpu} PE(s) per GPU) but {visible} GPU(s) are \
                 visible; start fewer PEs, or share GPUs with `nvshmemrun --pes-per-gpu K` \
                 (or NVSHMEMRS_PES_PER_GPU=K under mpirun/srun)"
            ),
            Error::Cuda { action, error } => {
                write!(f, "CUDA failed while {action}: {error}")?;
                match after_kernel_failure(error.0).or(inside_capture(error.0)) {
                    Some(hint) => write!(f, "; {hint}"),
                    None => Ok(()),
                }
            }
            Error::Nvshmem { call, status, hint } => {
                write!(f, "{call} failed with status {status}: {hint}")
            }
            Error::AlreadyInitialized => write!(
                f,
                "NVSHMEM is already initialised in this process; it can be initialised once per \
                 process: keep the first `Nvshmem` handle and pass it by reference"
            ),
            Error::NoBootstrapPlugin { failures } => {
                write!(
                    f,
                    "no NVSHMEM bootstrap plugin for this process manager can be loaded:"
                )?;
                for (plugin, reason) in failures {
                    write!(f, "\n  - {plugin}: {reason}")?;
                }
                write!(
                    f,
                    "\nStart the job with nvshmemrun on one machine, or choose a bootstrap that works \
                     here with NVSHMEM_BOOTSTRAP (e.g. MPI) and NVSHMEM_BOOTSTRAP_PMI"
                )
            }
            Error::PeEnvironment(error) => write!(f, "{error}"),
            Error::Environment(error) => write!(f, "{error}"),
            Error::Rendezvous(error) => write!(f, "{error}"),
            Error::PeMismatch { expected, actual } => write!(
                f,
                "the launcher made this PE {} of {}, but NVSHMEM started it as PE {} of {}: \
                 NVSHMEM took its bootstrap from the environment; unset NVSHMEM_BOOTSTRAP when \
                 starting with nvshmemrun",
                expected.0, expected.1, actual.0, actual.1
            ),
            Error::InitIncomplete {
                status,
                transport_settings,
            } => {
                write!(
                    f,
                    "NVSHMEM bootstrapped this PE but did not finish initialising (nvshmemx_init_status: \
                     {status:?}), usually because no transport reaches every other PE. This PE's \
                     transport settings: "
                )?;
                if transport_settings.is_empty() {
                    write!(f, "none set (NVSHMEM's defaults)")?;
                }
                for (i, (name, value)) in transport_settings.iter().enumerate() {
                    write!(f, "{}{name}={value}", if i == 0 { "" } else { ", " })?;
                }
                write!(
                    f,
                    ". PEs on this machine reach each other through P2P between GPUs unless \
                     NVSHMEM_DISABLE_P2P is set, other machines through NVSHMEM_REMOTE_TRANSPORT \
                     (default ibrc; none turns it off): unset NVSHMEM_DISABLE_P2P, or choose a remote \
                     transport this machine has. NVSHMEM_DEBUG=INFO prints NVSHMEM's own reason"
                )
            }
            Error::MpsFailed { action, error, mps } => {
                write!(
                    f,
                    "CUDA failed while {action}: {error}. {}",
                    mps_failed(mps)
                )
            }
            Error::HeapExhausted {
                bytes,
                in_use,
                bound,
            } => {
                use crate::environment::{HeapBound, MAX_MEMORY_PER_GPU, SYMMETRIC_SIZE};
                write!(
                    f,
                    "the symmetric heap cannot hold {bytes} more bytes ({} MiB)",
                    bytes.div_ceil(1 << 20)
                )?;
                if *in_use > 0 {
                    write!(
                        f,
                        " beside the {} MiB of live buffers",
                        in_use.div_ceil(1 << 20)
                    )?;
                }
                // The heap holds every live buffer and this one: its bound plus this request is
                // enough whatever the others take.
                let (variable, size, how) = match bound {
                    Some(HeapBound::Cap(cap)) => {
                        (MAX_MEMORY_PER_GPU, *cap, "NVSHMEM grows the heap up to")
                    }
                    Some(HeapBound::Fixed(size)) => (
                        SYMMETRIC_SIZE,
                        *size,
                        "with CUDA's virtual memory management off, the heap is fixed at",
                    ),
                    Some(HeapBound::FreeMemory(free)) => {
                        return write!(
                            f,
                            ": the GPU has only {} MiB free; free device memory (other buffers, \
                             other processes on this GPU) or run fewer PEs per GPU",
                            free >> 20
                        );
                    }
                    None => {
                        return write!(
                            f,
                            "; NVSHMEM's heap settings could not be read: set \
                             {MAX_MEMORY_PER_GPU} (or, with NVSHMEM_DISABLE_CUDA_VMM=1, \
                             {SYMMETRIC_SIZE}) larger, or free buffers first"
                        );
                    }
                };
                write!(
                    f,
                    ": {how} {variable} ({} MiB); set {variable} to at least {}M before starting \
                     the job, or free buffers first",
                    size >> 20,
                    size.saturating_add(*bytes as u64).div_ceil(1 << 20)
                )
            }
            Error::HeapGrowthFailed {
                bytes,
                in_use,
                cap,
                free,
                pes_per_gpu,
                mps,
            } => {
                use crate::environment::{
                    CUMEM_GRANULARITY, DISABLE_CUDA_VMM, MAX_MEMORY_PER_GPU, SYMMETRIC_SIZE,
                };
                let mib = |bytes: u64| bytes.div_ceil(1 << 20);
                write!(
                    f,
                    "NVSHMEM could not place {bytes} bytes ({} MiB) beside the {} MiB of live \
                     buffers, though its cap, {MAX_MEMORY_PER_GPU} ({} MiB), leaves room for them: \
                     the cap is not what stopped it. nvshmem_malloc returned null; NVSHMEM printed \
                     its reason on this PE's standard error above (NVSHMEM_DEBUG=INFO \
                     NVSHMEM_DEBUG_SUBSYS=MEM shows each step). NVSHMEM grows the heap in pieces of \
                     {CUMEM_GRANULARITY} through CUDA's virtual memory management and maps each \
                     into every PE of this machine; the GPU had {} MiB free. ",
                    mib(*bytes as u64),
                    mib(*in_use as u64),
                    cap >> 20,
                    free >> 20,
                )?;
                if *pes_per_gpu > 1 && !*mps {
                    write!(
                        f,
                        "This PE shares its GPU with {} other PE(s) without MPS (NVSHMEM's limited \
                         multi-PE-per-GPU mode): start MPS, or run fewer PEs per GPU. ",
                        pes_per_gpu - 1
                    )?;
                }
                write!(
                    f,
                    "A heap allocated whole at start does not grow: set {DISABLE_CUDA_VMM}=1 and \
                     {SYMMETRIC_SIZE}={}M",
                    mib((*in_use as u64).saturating_add(*bytes as u64))
                )
            }
            Error::InvalidAlignment { alignment, minimum } => write!(
                f,
                "alignment {alignment} is not a power of two of at least {minimum} (the element \
                 type's alignment); pass e.g. {}",
                (*minimum).max(alignment.next_power_of_two())
            ),
            Error::AllocationMismatch { requests } => {
                write!(f, "symmetric allocations differ across PEs:")?;
                for request in requests {
                    write!(
                        f,
                        "\n  - PE {} asked for {} bytes (its allocation #{})",
                        request.pe, request.bytes, request.sequence
                    )?;
                }
                write!(
                    f,
                    "\nEvery PE must allocate the same sizes in the same order; nothing was allocated"
                )
            }
            Error::EmptyAllocation => write!(
                f,
                "a symmetric allocation of zero elements was requested; allocate at least one"
            ),
            Error::LengthMismatch { buffer, slice } => write!(
                f,
                "the host slice has {slice} elements but the symmetric buffer has {buffer}; copy \
                 slices of the buffer's length"
            ),
            Error::VersionMismatch { device, host } => write!(
                f,
                "the kernels were linked with NVSHMEM {device} device code but the host library is \
                 NVSHMEM {host}; both must come from one release. Rebuild the kernels against the \
                 host library's release (NVSHMEM_HOME at build time) or point NVSHMEM_HOME at the \
                 NVSHMEM {device} install when running"
            ),
            Error::PtxContainsNul => write!(f, "the PTX text contains a NUL byte; it is not PTX"),
            Error::NotAnNvshmemModule => write!(
                f,
                "the module has no nvshmemi_device_lib_version_d: it was not linked with NVSHMEM's \
                 device library; build it with nvshmem-builder"
            ),
            Error::UncheckedAllocation { bytes } => write!(
                f,
                "a symmetric buffer of {bytes} bytes passed to a safe kernel was allocated with the \
                 allocation check off, so its size on the other PEs is unknown and a transfer could \
                 reach past their buffers; allocate it with the check on (the default; do not set \
                 NVSHMEMRS_CHECK_ALLOCATIONS=0 or call set_allocation_check(false) before it)"
            ),
            Error::ModuleGlobalLayout {
                symbol,
                bytes,
                expected,
            } => write!(
                f,
                "the module's {symbol} has {bytes} bytes, not the {expected} this nvshmem-host \
                 writes: the kernels were built with another nvshmem-gpu; build them with the \
                 nvshmem-gpu of this nvshmem-host's release"
            ),
            Error::KernelNotFound { name, available } => write!(
                f,
                "the module has no kernel `{name}`; it has: {}. Kernels are the #[kernel] \
                 functions of the kernel crate",
                available.join(", ")
            ),
            Error::BlockTooLarge {
                kernel,
                requested,
                limit,
                registers,
            } => write!(
                f,
                "kernel `{kernel}` cannot run blocks of {requested} threads: it runs blocks of at \
                 most {limit} ({registers} registers per thread); launch it with at most {limit} \
                 threads per block, or, where its registers are the limit, cap them in build.rs \
                 with `PtxBuilder::max_registers(\"{kernel}\", N)`"
            ),
            Error::CooperativeGridTooLarge {
                requested,
                limit,
                blocks_per_sm,
                sms,
            } => write!(
                f,
                "a cooperative launch of {requested} blocks cannot be resident at once: at this \
                 block size and shared memory, at most {blocks_per_sm} block(s) per multiprocessor \
                 × {sms} multiprocessors = {limit}; launch at most {limit} blocks (use a \
                 grid-stride loop) or smaller blocks"
            ),
            Error::Io { action, error } => write!(f, "{action} failed: {error}"),
            Error::InvalidTeamSplit {
                request,
                parent_size,
            } => write!(
                f,
                "cannot split a team of {parent_size} PE(s) with {request}: every PE of the new \
                 team (start + stride × i for i < size) must be below {parent_size}, with start ≥ \
                 0, stride ≥ 1 and size ≥ 1"
            ),
            Error::InvalidPe { pe, n_pes } => write!(
                f,
                "PE {pe} does not exist in a team of {n_pes} PE(s); pass a PE in 0..{n_pes}"
            ),
            Error::BufferTooShort {
                buffer,
                len,
                needed,
            } => write!(
                f,
                "the `{buffer}` buffer has {len} element(s) but the operation needs {needed}; \
                 allocate it larger or move fewer elements"
            ),
            Error::UniqueIdLength { found, expected } => write!(
                f,
                "the unique id read back has {found} byte(s) but an NVSHMEM unique id has \
                 {expected}; pass exactly the bytes UniqueId::as_bytes gave on rank 0 (a truncated \
                 file or message, or an id from another NVSHMEM version)"
            ),
            Error::UniqueIdVersion { found, expected } => write!(
                f,
                "the bytes are not an NVSHMEM unique id: they start with version word {found}, \
                 expected {expected}; pass exactly the bytes UniqueId::as_bytes gave on rank 0, \
                 made by the same NVSHMEM major version"
            ),
            Error::MissingSymbol { symbol, version } => match nvshmem_sys::first_release(symbol) {
                Some(since) => write!(
                    f,
                    "the loaded NVSHMEM host library (NVSHMEM {version}) has no {symbol}, which \
                     NVSHMEM {since} added; use NVSHMEM {since} or later (point NVSHMEM_HOME at \
                     it; {})",
                    nvshmem_locate::newer_release_hint()
                ),
                None => write!(
                    f,
                    "the loaded NVSHMEM host library (NVSHMEM {version}) has no {symbol}; use a \
                     newer NVSHMEM release that has it (point NVSHMEM_HOME at it)"
                ),
            },
            Error::ForeignContext {
                what,
                gpu,
                nvshmem_gpu,
            } => write!(
                f,
                "{what} belongs to a CUDA context (of GPU {gpu}) other than NVSHMEM's (of GPU \
                 {nvshmem_gpu}); create it from Nvshmem::context(), or start NVSHMEM on your \
                 context with Nvshmem::init_on"
            ),
            Error::CaptureOnLegacyStream => write!(
                f,
                "CUDA cannot capture the legacy default stream (the handle's own, \
                 Nvshmem::stream) into a graph; capture a stream of NVSHMEM's context made with \
                 nvshmem.context().new_stream(), and enqueue the work there (Nvshmem::on)"
            ),
            Error::EmptyCapture => write!(
                f,
                "the capture ended without a graph; enqueue the work on the stream passed to \
                 Nvshmem::capture, through the OnStream it hands the body"
            ),
            Error::Deferred(errors) => {
                write!(f, "{} error(s) while releasing resources:", errors.len())?;
                errors
                    .iter()
                    .try_for_each(|error| write!(f, "\n  - {error}"))
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<nvshmem_sys::LoadError> for Error {
    fn from(error: nvshmem_sys::LoadError) -> Self {
        Error::Library(error)
    }
}

impl From<crate::environment::EnvironmentError> for Error {
    fn from(error: crate::environment::EnvironmentError) -> Self {
        Error::Environment(error)
    }
}

impl From<nvshmem_pe_env::PeEnvError> for Error {
    fn from(error: nvshmem_pe_env::PeEnvError) -> Self {
        Error::PeEnvironment(error)
    }
}

impl From<nvshmem_pe_env::rendezvous::RendezvousError> for Error {
    fn from(error: nvshmem_pe_env::rendezvous::RendezvousError) -> Self {
        Error::Rendezvous(error)
    }
}

impl Error {
    /// [`Error::InitIncomplete`] with the transport settings of this process's environment.
    pub(crate) fn init_incomplete(status: crate::InitStatus) -> Error {
        let transport_settings = TRANSPORT_VARIABLES
            .iter()
            .filter_map(|&name| Some((name, std::env::var(name).ok()?)))
            .collect();
        Error::InitIncomplete {
            status,
            transport_settings,
        }
    }
}

impl Error {
    /// This error, or [`Error::MpsFailed`] when it is a CUDA error that a failed MPS server gives
    /// the clients it refuses and MPS is in use: for the calls that start CUDA on a GPU, where a
    /// broken kernel of this process cannot be the cause.
    pub(crate) fn under_mps(self) -> Error {
        match self {
            Error::Cuda { action, error } if refused_by_mps(error.0) => {
                match nvshmem_pe_env::mps::detect() {
                    Some(mps) => Error::MpsFailed { action, error, mps },
                    None => Error::Cuda { action, error },
                }
            }
            other => other,
        }
    }
}

/// Whether a failed MPS server answers a new client with `code` (a server that a dying client left
/// failed answers "unspecified launch failure").
fn refused_by_mps(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_MPS_CONNECTION_FAILED
            | CUDA_ERROR_MPS_RPC_FAILURE
            | CUDA_ERROR_MPS_SERVER_NOT_READY
            | CUDA_ERROR_MPS_CLIENT_TERMINATED
    )
}

/// What [`Error::MpsFailed`] says beside the driver's error.
fn mps_failed(mps: &nvshmem_pe_env::mps::Mps) -> String {
    format!(
        "MPS is in use ({mps}) and its server is in a failed state: a PE that died while its \
         kernel ran (or a kernel that faulted) leaves the server refusing every later client. \
         Restart MPS: {}",
        nvshmem_pe_env::mps::RESTART
    )
}

/// NVSHMEM's variables that decide which transports connect the PEs.
const TRANSPORT_VARIABLES: [&str; 2] = ["NVSHMEM_DISABLE_P2P", "NVSHMEM_REMOTE_TRANSPORT"];

/// What to look at after a CUDA error that a failed kernel leaves behind; such errors are sticky, so
/// whichever later call of the context sees one first (usually a synchronisation) reports it.
fn after_kernel_failure(code: CUresult) -> Option<&'static str> {
    use CUresult::*;
    match code {
        CUDA_ERROR_LAUNCH_FAILED | CUDA_ERROR_ILLEGAL_INSTRUCTION | CUDA_ERROR_ASSERT => Some(
            "a kernel trapped. nvshmem-gpu's device checks (a PE out of range) and timeouts print \
             why before they trap: look for the line starting `nvshmem-gpu:` printed above, on \
             this PE's standard output. Without one, a kernel panicked (panics trap silently)",
        ),
        CUDA_ERROR_ILLEGAL_ADDRESS
        | CUDA_ERROR_MISALIGNED_ADDRESS
        | CUDA_ERROR_INVALID_ADDRESS_SPACE
        | CUDA_ERROR_INVALID_PC
        | CUDA_ERROR_HARDWARE_STACK_ERROR => Some(
            "a kernel faulted. A PE out of range is a common cause: kernels built with \
             nvshmem-gpu's device checks (a debug build, or PtxBuilder::checks(true)) trap there \
             and print the call; compute-sanitizer finds the faulting access",
        ),
        _ => None,
    }
}

/// What went wrong in a graph capture ([`crate::Nvshmem::capture`]) that fails with `code`.
fn inside_capture(code: CUresult) -> Option<&'static str> {
    use CUresult::*;
    match code {
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED | CUDA_ERROR_STREAM_CAPTURE_INVALIDATED => Some(
            "a call inside a graph capture cannot be captured (a host-synchronising call: \
             synchronize, a copy to or from host memory, an allocation), and it spoils the \
             capture; move it before or after Nvshmem::capture",
        ),
        CUDA_ERROR_STREAM_CAPTURE_IMPLICIT => Some(
            "work on the legacy default stream (the handle's own, used by Kernel::launch and the \
             methods of Nvshmem) joined a stream being captured; enqueue it through the OnStream \
             that Nvshmem::capture hands the body",
        ),
        CUDA_ERROR_STREAM_CAPTURE_ISOLATION | CUDA_ERROR_STREAM_CAPTURE_UNJOINED => Some(
            "captured work depends on, or forked to, a stream outside the capture; keep the \
             captured work on the captured stream",
        ),
        CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD => Some(
            "a capture must end on the thread that began it; keep Nvshmem::capture's body on \
             its thread",
        ),
        _ => None,
    }
}

/// Attaches what was being done to a CUDA driver error, making it an [`Error::Cuda`]: for code
/// that calls cudarc directly beside this crate (`result.doing("zeroing the counters")?`).
pub trait CudaContext<T> {
    /// Wraps the error with `action` ("loading the PTX module", …).
    fn doing(self, action: impl Into<String>) -> Result<T, Error>;
}

impl<T> CudaContext<T> for Result<T, cudarc::driver::DriverError> {
    fn doing(self, action: impl Into<String>) -> Result<T, Error> {
        self.map_err(|error| Error::Cuda {
            action: action.into(),
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_heap_names_the_size_needed_and_the_variable() {
        use crate::environment::HeapBound;
        let message = |in_use, bound| {
            Error::HeapExhausted {
                bytes: 3 << 20,
                in_use,
                bound,
            }
            .to_string()
        };
        for (in_use, bound, parts) in [
            (
                0,
                Some(HeapBound::Cap(1 << 30)),
                &[
                    "cannot hold 3145728 more bytes (3 MiB): NVSHMEM grows the heap up to",
                    "up to NVSHMEM_MAX_MEMORY_PER_GPU (1024 MiB)",
                    "set NVSHMEM_MAX_MEMORY_PER_GPU to at least 1027M",
                ][..],
            ),
            (
                1022 << 20,
                Some(HeapBound::Cap(1 << 30)),
                &[
                    "cannot hold 3145728 more bytes (3 MiB) beside the 1022 MiB of live buffers",
                    "set NVSHMEM_MAX_MEMORY_PER_GPU to at least 1027M",
                ][..],
            ),
            (
                0,
                Some(HeapBound::Fixed(64 << 20)),
                &[
                    "fixed at NVSHMEM_SYMMETRIC_SIZE (64 MiB)",
                    "set NVSHMEM_SYMMETRIC_SIZE to at least 67M",
                ],
            ),
            (
                0,
                Some(HeapBound::FreeMemory(2 << 20)),
                &["the GPU has only 2 MiB free"],
            ),
            (0, None, &["could not be read"]),
        ] {
            let message = message(in_use, bound);
            for part in parts {
                assert!(message.contains(part), "{message}");
            }
        }
    }

    #[test]
    fn a_failed_growth_below_the_cap_does_not_blame_the_cap() {
        let message = |pes_per_gpu, mps| {
            Error::HeapGrowthFailed {
                bytes: 1_600_000_000,
                in_use: 65 << 20,
                cap: 128 << 30,
                free: 130 << 30,
                pes_per_gpu,
                mps,
            }
            .to_string()
        };
        let shared = message(2, false);
        for part in [
            "could not place 1600000000 bytes (1526 MiB) beside the 65 MiB of live buffers",
            "NVSHMEM_MAX_MEMORY_PER_GPU (131072 MiB), leaves room for them",
            "the cap is not what stopped it",
            "NVSHMEM printed its reason on this PE's standard error above",
            "the GPU had 133120 MiB free",
            "shares its GPU with 1 other PE(s) without MPS",
            "start MPS, or run fewer PEs per GPU",
            "set NVSHMEM_DISABLE_CUDA_VMM=1 and NVSHMEM_SYMMETRIC_SIZE=1591M",
        ] {
            assert!(shared.contains(part), "{part:?} in {shared}");
        }
        assert!(
            !shared.contains("NVSHMEM_MAX_MEMORY_PER_GPU to"),
            "{shared}"
        );
        for alone in [message(1, false), message(2, true)] {
            assert!(!alone.contains("without MPS"), "{alone}");
        }
    }

    #[test]
    fn an_oversized_block_names_the_limit_and_both_fixes() {
        let message = Error::BlockTooLarge {
            kernel: "reduce_latency_block".into(),
            requested: 1024,
            limit: 256,
            registers: 255,
        }
        .to_string();
        assert_eq!(
            message,
            "kernel `reduce_latency_block` cannot run blocks of 1024 threads: it runs blocks of \
             at most 256 (255 registers per thread); launch it with at most 256 threads per \
             block, or, where its registers are the limit, cap them in build.rs with \
             `PtxBuilder::max_registers(\"reduce_latency_block\", N)`"
        );
    }

    #[test]
    fn a_function_newer_than_the_library_names_the_release_that_added_it() {
        let old = nvshmem_locate::Version {
            major: 3,
            minor: 4,
            patch: 5,
        };
        let message = Error::MissingSymbol {
            symbol: "nvshmemx_flush_on_stream",
            version: old,
        }
        .to_string();
        assert!(
            message.contains(
                "(NVSHMEM 3.4.5) has no nvshmemx_flush_on_stream, which NVSHMEM 3.7 added; use \
                 NVSHMEM 3.7 or later"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_spoiled_capture_names_the_call_to_move() {
        // The driver's own text of the error needs the driver; the hint beside it does not.
        for code in [
            CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
        ] {
            let hint = inside_capture(code).unwrap();
            assert!(
                hint.contains("move it before or after Nvshmem::capture"),
                "{hint}"
            );
        }
        let hint = inside_capture(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT).unwrap();
        assert!(hint.contains("OnStream"), "{hint}");
        assert_eq!(inside_capture(CUresult::CUDA_ERROR_LAUNCH_FAILED), None);
        let message = Error::CaptureOnLegacyStream.to_string();
        assert!(message.contains("new_stream()"), "{message}");
    }

    #[test]
    fn an_incomplete_init_names_the_status_and_the_transport_settings() {
        let error = Error::InitIncomplete {
            status: crate::InitStatus::Bootstrapped,
            transport_settings: vec![
                ("NVSHMEM_DISABLE_P2P", "1".into()),
                ("NVSHMEM_REMOTE_TRANSPORT", "none".into()),
            ],
        };
        let message = error.to_string();
        for part in [
            "did not finish initialising (nvshmemx_init_status: Bootstrapped)",
            "no transport reaches every other PE",
            "settings: NVSHMEM_DISABLE_P2P=1, NVSHMEM_REMOTE_TRANSPORT=none.",
            "unset NVSHMEM_DISABLE_P2P",
        ] {
            assert!(message.contains(part), "no `{part}` in: {message}");
        }
        assert!(!message.contains("device library"), "{message}");
        let error = Error::InitIncomplete {
            status: crate::InitStatus::NotInitialized,
            transport_settings: Vec::new(),
        };
        assert!(error.to_string().contains("settings: none set"), "{error}");
    }

    #[test]
    fn a_failed_mps_server_is_named_with_the_way_out() {
        for code in [
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_MPS_SERVER_NOT_READY,
        ] {
            assert!(refused_by_mps(code), "{code:?}");
        }
        assert!(!refused_by_mps(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        let mps = nvshmem_pe_env::mps::Mps::Pipe("/tmp/mps-pipes".into());
        let hint = mps_failed(&mps);
        for part in [
            "MPS is in use (control pipe in /tmp/mps-pipes)",
            "failed state",
            "echo quit | nvidia-cuda-mps-control",
            "nvidia-cuda-mps-control -d",
        ] {
            assert!(hint.contains(part), "no `{part}` in: {hint}");
        }
    }

    #[test]
    fn a_trapped_kernel_points_at_the_device_message() {
        for code in [
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
        ] {
            let hint = after_kernel_failure(code).unwrap();
            assert!(hint.contains("`nvshmem-gpu:` printed above"), "{hint}");
        }
        let hint = after_kernel_failure(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS).unwrap();
        assert!(hint.contains("PtxBuilder::checks(true)"), "{hint}");
        assert_eq!(
            after_kernel_failure(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            None
        );
    }
}
