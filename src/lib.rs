//! nvshmem-rs examples: see `examples/` and the README's table. The package builds the examples'
//! kernels (`build.rs`) and runs them (`cargo run --example NAME`); this library holds what the
//! runners share.
//!
//! | module | what |
//! |---|---|
//! | [`timing`] | GPU time between two points of a stream, the device-to-device copy rate |

pub mod timing;
