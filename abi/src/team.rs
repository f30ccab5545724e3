//! NVSHMEM teams as kernels and the host pass them.

/// An NVSHMEM team (`nvshmem_team_t`): the same value on host and device.
///
/// ```
/// use nvshmem_abi::Team;
/// assert_eq!(Team::WORLD.raw(), 0); // NVSHMEM_TEAM_WORLD
/// assert_eq!(Team::SHARED.raw(), 1); // NVSHMEM_TEAM_SHARED
/// assert_eq!(Team::NODE.raw(), 2); // NVSHMEMX_TEAM_NODE
/// assert_eq!(Team::SAME_MYPE_NODE.raw(), 3); // NVSHMEMX_TEAM_SAME_MYPE_NODE
/// ```
///
/// A team cannot be made from an integer without `unsafe`:
///
/// ```compile_fail,E0133
/// let team = nvshmem_abi::Team::from_raw(7);
/// ```
///
/// ```
/// // SAFETY: for the example only; real ones come from the host crate's team splits.
/// let team = unsafe { nvshmem_abi::Team::from_raw(7) };
/// assert_eq!(team.raw(), 7);
/// ```
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Team(i32);

impl Team {
    /// All PEs of the job (`NVSHMEM_TEAM_WORLD`).
    pub const WORLD: Team = Team(0);
    /// The PEs that share memory with this PE, i.e. can reach each other with
    /// `nvshmem-gpu`'s `rma::ptr` (`NVSHMEM_TEAM_SHARED`).
    pub const SHARED: Team = Team(1);
    /// The PEs on this PE's node (`NVSHMEMX_TEAM_NODE`).
    pub const NODE: Team = Team(2);
    /// The PEs with this PE's index in their node, one per node (`NVSHMEMX_TEAM_SAME_MYPE_NODE`).
    pub const SAME_MYPE_NODE: Team = Team(3);

    /// NVSHMEM's value of the team.
    pub const fn raw(self) -> i32 {
        self.0
    }

    /// Wraps NVSHMEM's value of a team.
    ///
    /// # Safety
    /// `raw` names a team that exists (predefined, or created and not destroyed) on every PE that
    /// uses the value, and is not `NVSHMEM_TEAM_INVALID` (-1).
    pub const unsafe fn from_raw(raw: i32) -> Team {
        Team(raw)
    }
}
