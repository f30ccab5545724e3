//! GPU tests of the device API, not a library: `tests/gpu_device_api/` launches one kernel per
//! family of `nvshmem-gpu` (from `kernels/` and `teams-kernels/`, which `build.rs` compiles) and
//! compares what it leaves with what the call promises; `tests/gpu_device_api_nvshmem_only.rs`
//! runs the same tests on the kernels built with the load/store path off; `tests/gpu_signatures.rs`
//! checks the typed launch's refusal of a hostile kernel crate (`signature-kernels/`). The GPU
//! suite (`gpu-suite/cases/30-device-api.sh`, `20-host-checks.sh`) runs them on the GPU machine.
