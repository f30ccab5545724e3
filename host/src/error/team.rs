//! What can go wrong with PE numbers and team splits.

use std::fmt;

/// A PE or team split that the team in question does not have.
#[derive(Debug)]
#[non_exhaustive]
pub enum TeamError {
    /// A PE number outside `0..n_pes` of its team.
    InvalidPe {
        /// The PE number given.
        pe: i32,
        /// The number of PEs in the team it was meant for.
        n_pes: i32,
    },
    /// A `Team` value of a split team whose handle was dropped (or of a team this PE holds no
    /// handle of).
    Destroyed {
        /// NVSHMEM's number of the team.
        team: i32,
    },
    /// A call that needs NVSHMEM's teams and collectives, which several PEs sharing a GPU get only
    /// under MPS (see [`crate::Nvshmem::collectives_available`]).
    NeedsMps {
        /// The call, e.g. `reduce_on_stream`.
        call: &'static str,
    },
    /// A team split asked for PEs the parent team does not have.
    InvalidSplit {
        /// The split asked for, in words (`start 0, stride 2, size 3`).
        request: String,
        /// The number of PEs in the parent team.
        parent_size: i32,
    },
}

impl fmt::Display for TeamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamError::InvalidSplit {
                request,
                parent_size,
            } => write!(
                f,
                "cannot split a team of {parent_size} PE(s) with {request}: every PE of the new \
                 team (start + stride × i for i < size) must be below {parent_size}, with start ≥ \
                 0, stride ≥ 1 and size ≥ 1"
            ),
            TeamError::Destroyed { team } => write!(
                f,
                "team {team} does not exist on this PE: its TeamHandle was dropped (or this PE \
                 holds none); use a split team's `Team` only while its handle lives"
            ),
            TeamError::NeedsMps { call } => write!(
                f,
                "{call} needs NVSHMEM's teams and collectives, which this job lacks: several PEs \
                 share this GPU without MPS (NVSHMEM's limited multi-PE-per-GPU mode refuses \
                 team creation, team barriers and collectives). Run the job with `nvshmemrun \
                 --mps`, or under an MPS daemon with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE at most \
                 100 / PEs per GPU, or with one PE per GPU; Nvshmem::collectives_available() \
                 tells beforehand"
            ),
            TeamError::InvalidPe { pe, n_pes } => write!(
                f,
                "PE {pe} does not exist in a team of {n_pes} PE(s); pass a PE in 0..{n_pes}"
            ),
        }
    }
}

impl std::error::Error for TeamError {}
