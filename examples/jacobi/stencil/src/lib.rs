//! The 5-point Jacobi stencil both kernel crates of the jacobi example build on
//! (`examples/jacobi/kernels`, rows split over PEs, and `examples/jacobi/grid-kernels`, a 2-D
//! process grid), and the initial state the runners' CPU reference shares:
//!
//! | module | what |
//! |---|---|
//! | [`problem`] | the initial state: every interior cell non-zero, and each local cell of a patch |
//! | [`sweep`] | the update and the vectorised column sweep, unchecked and checked |
//! | [`push`] | which edge rows a band sends, and the block-cooperative push |
//! | [`kernels`] | the kernels both modules hold: initialisation, the plain stencil (also the single-GPU reference), the meeting, the norm and the gather |
//! | [`fault`] | the defect `--stale-halo` plants for `--check` to find |
//! | [`floors`] | the kernels that time the floors of an iteration: a copy and an empty launch |
//!
//! A `#[kernel]` of this crate is an entry point of each kernel crate's PTX, as that crate's own
//! kernels are: rustc exports a `cdylib`'s dependencies' `#[no_mangle]` functions too.
//!
//! On the host the kernels do not exist (their launch descriptors do); the arithmetic is tested
//! there against a whole-grid reference.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

pub mod fault;
pub mod floors;
pub mod kernels;
pub mod problem;
pub mod push;
pub mod sweep;

#[cfg(test)]
mod tests;
