//! Each runner's command line: its parser (a `clap::Parser` that flattens the shared
//! [`Options`](crate::Options)), its variants, and how it splits the interior over the PEs. Free of
//! kernels, so that `fuzz/` can include these files.

pub mod grid;
pub mod rows;
