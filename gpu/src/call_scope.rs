//! The groups of threads that make one NVSHMEM call together: its thread, warp and block scopes,
//! as the device checks' handshake and the load/store path tell them apart at run time.

/// Which threads make one call together.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The calling thread alone.
    Thread,
    /// The 32 threads of the calling warp.
    Warp,
    /// Every thread of the calling block.
    Block,
}
