//! The command lines of the two Jacobi runners (`jacobi`, rows split over PEs, and `jacobi2d-grid`,
//! a 2-D process grid): the flags they share ([`Options`]) and the checks across them ([`parse`]),
//! and each runner's parser, variants and split of the interior over the PEs ([`rows`], [`grid`]).
//! A crate of its own, so that the fuzz targets (`fuzz/`) parse them without building the kernels.

mod flags;
pub mod grid;
pub mod rows;
#[cfg(test)]
mod tests;

pub use flags::{Options, Rules, STALE_HALO_NEEDS_PES, STALE_ITERATION, parse, usage_error};
