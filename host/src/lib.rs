//! Host side of nvshmem-rs: NVSHMEM init, symmetric buffers, PTX modules and collective launches.
