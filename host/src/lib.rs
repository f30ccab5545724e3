//! The host side of nvshmem-rs: initialise NVSHMEM, allocate symmetric buffers, load PTX modules
//! built by `nvshmem-builder`, and launch their kernels on every PE.
//!
//! ```no_run
//! use nvshmem_host::{LaunchShape, Nvshmem};
//! # const KERNELS: &str = "";
//! let nvshmem = Nvshmem::init()?; // bootstraps from nvshmemrun, mpirun or srun
//! // KERNELS = nvshmem_host::module_image!("RING_KERNELS"): the PTX, and machine code for the GPU
//! let module = nvshmem.load_module(KERNELS)?;
//! let source = nvshmem.alloc::<f32>(1024)?;
//! let received = nvshmem.alloc_zeroed::<f32>(1024)?;
//! let returned = nvshmem.alloc_zeroed::<f32>(1024)?;
//! let ring = module.kernel("ring_block")?;
//! // SAFETY: ring_block(source, received, returned, count) uses `count` elements of each buffer.
//! unsafe {
//!     ring.launch_cooperative(
//!         LaunchShape::linear(1, 256),
//!         &[&source.as_symmetric_ptr(), &received.as_symmetric_ptr(), &returned.as_symmetric_ptr(), &1024usize],
//!     )?;
//! }
//! let values = returned.to_vec()?;
//! # Ok::<(), nvshmem_host::Error>(())
//! ```
//!
//! # Layers
//! As in cudarc: `nvshmem-sys` holds the generated bindings, loaded at run time; [`result`] wraps
//! each NVSHMEM call into a `Result`; the types here ([`Nvshmem`], [`SymmetricBuffer`], [`Module`],
//! [`Kernel`]) own resources and release them on drop. CUDA itself goes through cudarc's driver API.
//!
//! # Contract
//! NVSHMEM's collective rules are the caller's: every PE allocates and frees symmetric buffers in the
//! same order and sizes, and launches the same collective kernels. What can be checked is checked:
//! versions of device code and host library, the cooperative grid limit, the GPU count, buffer
//! lengths on copies. Errors raised while dropping are kept and returned by
//! [`Nvshmem::take_deferred_errors`] or [`Nvshmem::finalize`].
//!
//! # Several PEs on one GPU
//! NVSHMEM lets several PEs share a GPU, but without NVIDIA's MPS it runs them in a limited mode:
//! every wait on another PE costs a GPU time slice, and team creation, team barriers and
//! collectives are refused. [`Nvshmem::collectives_available`] says which mode this job has; the
//! calls that need the full one refuse with [`TeamError::NeedsMps`], which names the fix
//! (`nvshmemrun --mps` runs a job under an MPS daemon of its own).
//!
//! # Errors
//! Every fallible call returns [`Error`]: a layer's own error ([`InitError`], [`MemoryError`],
//! [`ModuleError`], [`KernelLaunchError`], [`GraphError`], [`TeamError`], and
//! [`environment::EnvironmentError`]) or a failure any layer can meet (a CUDA or NVSHMEM call, a
//! function the loaded library lacks). Each message says what to do.
//!
//! # Diagnostics
//! The crate never prints; it logs through the `log` crate: at `debug`, what it found and chose
//! (the bootstrap, the GPU, the NVSHMEM release, the symmetric heap size); at `warn`, errors a drop
//! could not return. A program without a logger loses nothing that matters, because every error is
//! also returned. With `env_logger`, `RUST_LOG=nvshmem_host=debug` shows the choices.

pub mod allocation_check;
mod bootstrap;
mod buffer;
mod device_checks;
mod device_memory;
mod device_state;
mod device_transport;
pub mod environment;
mod error;
mod exit_guard;
mod graph;
mod heap_size;
mod image;
mod init_deadline;
mod launch;
mod lengths;
mod mapped_signal_adds;
mod module;
#[cfg(feature = "mpi")]
pub mod mpi;
mod nvshmem;
mod peer;
mod registration;
pub mod result;
mod signature;
mod stream_ops;
mod team;
pub mod timing;
mod typed_launch;
mod unique_id;

pub use bootstrap::{Bootstrap, Plugin};
pub use buffer::SymmetricBuffer;
pub use error::{
    AllocationRefusal, AllocationRequest, DriverErrorContext, Error, GraphError, InitError,
    KernelLaunchError, MemoryError, ModuleError, TeamError,
};
pub use graph::Graph;
pub use image::ModuleImage;
pub use init_deadline::{DEFAULT_INIT_TIMEOUT, INIT_TIMEOUT};
pub use launch::{KernelArg, LaunchShape};
pub use mapped_signal_adds::SignalAdds;
pub use module::{Kernel, Module};
pub use nvshmem::{Nvshmem, UNIQUE_ID_TIMEOUT};
pub use nvshmem_abi::{Cmp, SignalOp, SymmetricPtr, Team, op};
pub use nvshmem_abi::{KernelDescriptor, SafeKernel, SliceParam};
pub use registration::{LocalMemory, RegisteredBuffer};
pub use signature::check_ptx_signature;
pub use stream_ops::{OnStream, StreamOperations, StreamReduce};
pub use team::{InitStatus, TeamHandle};
pub use typed_launch::{IntoParam, KernelArgs, LaunchValue, ParamList, TypedKernel};
pub use unique_id::UniqueId;
