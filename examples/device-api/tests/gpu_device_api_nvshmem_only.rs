//! The device-API GPU tests of `gpu_device_api/`, run on the same kernels built with
//! `nvshmem-gpu`'s load/store path off (its `nvshmem-only` feature), so that every transfer, put
//! with signal and collective is NVSHMEM's own call. Each test passing both ways shows that the
//! load/store path and NVSHMEM's leave the same results. Run as `gpu_device_api`'s tests are
//! (`gpu-suite/cases/30-device-api.sh`); the test names carry the module prefix `gpu_device_api::`.

// By path: a test target cannot depend on another; this one is that one's files, built again.
#[path = "gpu_device_api/main.rs"]
mod gpu_device_api;
