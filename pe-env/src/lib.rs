//! The contract between the launcher (`nvshmemrun`, crate `nvshmem-launch`) and the PEs it starts
//! (crate `nvshmem-host`): both sides take it from here, so neither depends on the other.
//!
//! The launcher gives every PE these variables; this crate is the one place their names are
//! written down, and [`PeIdentity`] is how both sides handle them (the launcher builds one per PE
//! and turns it into variables with [`PeIdentity::env_vars`]; a PE reads its own back with
//! [`PeIdentity::from_env`]).
//!
//! | Variable | Meaning |
//! |---|---|
//! | [`PE`] `NVSHMEMRS_PE` | this PE's number, `0..N` |
//! | [`N_PES`] `NVSHMEMRS_N_PES` | the job's PE count `N` |
//! | [`LOCAL_PE`] `NVSHMEMRS_LOCAL_PE` | this PE's number among the PEs on this machine |
//! | [`LOCAL_N_PES`] `NVSHMEMRS_LOCAL_N_PES` | how many PEs run on this machine |
//! | [`PES_PER_GPU`] `NVSHMEMRS_PES_PER_GPU` | how many PEs share one GPU (`K`) |
//! | [`RENDEZVOUS`] `NVSHMEMRS_RENDEZVOUS` | a private folder the launcher made for this job (see [`rendezvous`]) |
//!
//! The launcher runs every PE on one machine, so the local values equal the global ones.
//!
//! The [`rendezvous`] folder is the other half of the contract: the launcher creates it
//! ([`rendezvous::JobFolder`]) and removes it when the job ends; the PEs hand NVSHMEM's unique id
//! to each other through it.
//!
//! Both sides also look at the machine the same way: [`mps`] says whether NVIDIA's MPS serves its
//! GPUs, so that a failure MPS can cause is reported with the way out.
//!
//! ```no_run
//! use nvshmem_pe_env::PeIdentity;
//!
//! match PeIdentity::from_env()? {
//!     Some(me) => println!("PE {} of {} on GPU {}", me.pe, me.n_pes, me.gpu_ordinal()),
//!     None => println!("not started by nvshmemrun"),
//! }
//! # Ok::<(), nvshmem_pe_env::PeEnvError>(())
//! ```

mod identity;
pub mod mps;
pub mod rendezvous;

pub use identity::{
    LOCAL_N_PES, LOCAL_PE, MAX_PES, MAX_PES_PER_GPU, N_PES, PE, PES_PER_GPU, PeEnvError,
    PeIdentity, RENDEZVOUS, pes_per_gpu,
};
