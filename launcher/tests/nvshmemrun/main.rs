//! Tests of `nvshmemrun` and the `nvshmem-launch` library, with `sh` scripts as stand-in PEs.

mod cli;
mod common;
mod mps;
mod rendezvous;
mod supervision;
