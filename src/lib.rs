//! nvshmem-rs examples: see `examples/` and the README's table. This library is empty; the package
//! exists to build the examples' kernels (`build.rs`) and run them (`cargo run --example NAME`).
