//! The #[kernel] attribute for nvshmem-gpu kernels.
