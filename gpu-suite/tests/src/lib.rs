//! The library's GPU tests, not a library: each `tests/gpu*` target holds `#[ignore]`d tests that
//! need a GPU and NVSHMEM, which the GPU suite (`gpu-suite/run.sh`, one case file per group in
//! `gpu-suite/cases/`) runs on the GPU machine from `./x gpu-bundle`'s binaries, each test in its
//! own set of processes.
//!
//! - `tests/gpu_device_api/` launches one kernel per family of `nvshmem-gpu` (from `kernels/` and
//!   `teams-kernels/`, which `build.rs` compiles; their buffers' layout and expected values are
//!   the `layout/` crate) and compares what it leaves with what the call promises; with the
//!   `nvshmem-only` feature, on the kernels built with the load/store path off (`./x gpu-bundle`
//!   carries both builds, the second as `gpu_device_api_nvshmem_only`; `30-device-api.sh`).
//! - `tests/gpu_signatures.rs` checks the typed launch's refusal of a hostile kernel crate
//!   (`signature-kernels/`); `tests/gpu_collective_checks.rs` and `tests/gpu_host_misuse.rs` what
//!   the host API refuses or keeps safe across PEs (`20-host-checks.sh`).
//! - `tests/gpu_leaks.rs`: allocations, module loads and team splits over a long run give back what
//!   they take (`72-leaks.sh`).
//! - `tests/gpu_mpi.rs` (the `mpi` feature): NVSHMEM over the program's own MPI communicators
//!   (`52-mpi.sh`).
