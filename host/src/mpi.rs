//! NVSHMEM over an MPI communicator of the program's own (the `mpi` feature, on rsmpi).
//!
//! An MPI program that already has its processes and communicators lets NVSHMEM bootstrap over one
//! of them, so that NVSHMEM's PEs are that communicator's ranks, in its order: a sub-communicator
//! runs its own NVSHMEM job beside the others.
//!
//! ```no_run
//! use mpi::topology::{Color, Communicator};
//! let universe = mpi::initialize().expect("MPI initialises once");
//! let world = universe.world();
//! // Two halves of MPI_COMM_WORLD, each its own NVSHMEM job.
//! let half = world
//!     .split_by_color(Color::with_value(world.rank() % 2))
//!     .expect("every rank has a colour");
//! let nvshmem = nvshmem_host::Nvshmem::init_with_mpi(&half)?;
//! assert_eq!(nvshmem.my_pe(), half.rank());
//! nvshmem.finalize()?; // before `universe` finalises MPI
//! # Ok::<(), nvshmem_host::Error>(())
//! ```
//!
//! # Contract
//! - Every rank of the communicator calls [`Nvshmem::init_with_mpi`] (it is collective).
//! - MPI stays initialised until the handle is finalised or dropped: drop the [`Nvshmem`] before
//!   rsmpi's `Universe`.
//! - NVSHMEM's MPI bootstrap plugin (`nvshmem_bootstrap_mpi.so.3`) is built against Open MPI
//!   (`libmpi.so.40`): the program must run on Open MPI, with its `libmpi.so.40` loadable, and be
//!   built against Open MPI's headers, so that the communicator handle means the same to both.
//! - The GPU is chosen as under a process manager: the rank among the communicator's ranks on this
//!   node, divided by `NVSHMEMRS_PES_PER_GPU` (default 1).

use crate::bootstrap::Plugin;
use crate::nvshmem::{first_loadable, open_gpu};
use crate::{Error, Nvshmem, result};
use mpi::raw::AsRaw;
use mpi::topology::Communicator;

impl Nvshmem {
    /// Initialises NVSHMEM with the ranks of `communicator` as its PEs (PE = rank): collective
    /// over the communicator. See the [module documentation](crate::mpi) for the contract.
    pub fn init_with_mpi<C>(communicator: &C) -> Result<Nvshmem, Error>
    where
        C: Communicator + AsRaw<Raw = mpi::ffi::MPI_Comm>,
    {
        // The ranks that share this node's memory, in the communicator's order: this rank's place
        // among them picks the GPU.
        let on_this_node = communicator.split_shared(communicator.rank());
        let local_rank = usize::try_from(on_this_node.rank()).expect("MPI ranks are not negative");
        let pes_per_gpu = nvshmem_pe_env::pes_per_gpu();
        let handle = communicator.as_raw();
        Nvshmem::claim(|| {
            Nvshmem::initialize(open_gpu(local_rank, pes_per_gpu)?, |lib| {
                // A clear error here, naming the plugin and why it did not load, rather than
                // NVSHMEM's own failure inside init.
                first_loadable(&[Plugin::Mpi])?;
                result::init_with_mpi_communicator(lib, handle)
            })
        })
    }
}
