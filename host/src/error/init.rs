//! What can go wrong while NVSHMEM starts: the library, the driver and GPUs, the launcher's
//! environment, the bootstrap and the unique id.

use std::fmt;

/// NVSHMEM could not start in this process ([`crate::Nvshmem::init`] and its siblings,
/// [`crate::UniqueId`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum InitError {
    /// NVSHMEM's host library could not be loaded (the message lists every path tried).
    Library(nvshmem_sys::LoadError),
    /// There is no NVIDIA driver (`libcuda.so.1`) on this machine.
    NoCudaDriver,
    /// The driver loaded but reports no GPU.
    NoGpu,
    /// This PE's GPU ordinal is beyond the visible GPUs.
    TooFewGpus {
        /// The ordinal this PE needs (local rank / PEs per GPU).
        ordinal: usize,
        /// The number of GPUs CUDA reports.
        visible: usize,
        /// The PEs per GPU in effect.
        pes_per_gpu: usize,
    },
    /// The MPS server refused this client because it is in a failed state: a client died while its
    /// kernel ran (or a kernel faulted), and the server fails every later client until restarted.
    MpsFailed {
        /// What was being done.
        action: String,
        /// The driver's error.
        error: cudarc::driver::DriverError,
        /// How MPS was detected.
        mps: nvshmem_pe_env::mps::Mps,
    },
    /// NVSHMEM was already initialised in this process.
    AlreadyInitialized,
    /// [`crate::Nvshmem::init_with_heap`] could not set `NVSHMEM_SYMMETRIC_SIZE`: other threads run
    /// in this process, and changing the environment beside them is not sound.
    HeapNotSized {
        /// The value it would have set.
        value: String,
    },
    /// None of the bootstrap plugins for the detected process manager can be loaded.
    NoBootstrapPlugin {
        /// Each plugin tried, and the loader's reason.
        failures: Vec<(String, String)>,
    },
    /// The launcher's environment (`NVSHMEMRS_*`) is inconsistent.
    PeEnvironment(nvshmem_pe_env::PeEnvError),
    /// The unique-id exchange with PE 0 failed.
    Rendezvous(nvshmem_pe_env::rendezvous::RendezvousError),
    /// A file or folder operation of the start failed.
    Io {
        /// What was being done.
        action: &'static str,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// `NVSHMEMRS_INIT_TIMEOUT` is not a number of seconds.
    InitTimeout {
        /// What is wrong and how to set it.
        why: String,
    },
    /// Bytes meant as a unique id have the wrong length.
    UniqueIdLength {
        /// The bytes given.
        found: usize,
        /// The bytes of an id.
        expected: usize,
    },
    /// Bytes meant as a unique id lack NVSHMEM's version word for the layout.
    UniqueIdVersion {
        /// The word the bytes start with.
        found: i32,
        /// The word NVSHMEM's ids start with.
        expected: i32,
    },
    /// NVSHMEM started with a different PE number or count than the launcher assigned.
    PeMismatch {
        /// What the launcher assigned, `(pe, n_pes)`.
        expected: (i32, i32),
        /// What NVSHMEM reports.
        actual: (i32, i32),
    },
    /// NVSHMEM's initialisation returned success but only bootstrapped: it could not finish setting
    /// itself up (`nvshmemx_init_status` below `NVSHMEM_STATUS_IS_INITIALIZED`).
    Incomplete {
        /// The status NVSHMEM reports.
        status: crate::InitStatus,
        /// The transport settings in this PE's environment, `(variable, value)`, those set only.
        transport_settings: Vec<(&'static str, String)>,
    },
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::Library(error) => write!(f, "{error}"),
            InitError::NoCudaDriver => write!(
                f,
                "no NVIDIA driver: libcuda.so.1 could not be loaded. This machine has no NVIDIA GPU \
                 or driver; run on a GPU machine (or check that the driver's libraries are on the \
                 loader path)"
            ),
            InitError::NoGpu => write!(
                f,
                "the NVIDIA driver reports no GPU; check CUDA_VISIBLE_DEVICES and `nvidia-smi`"
            ),
            InitError::TooFewGpus {
                ordinal,
                visible,
                pes_per_gpu,
            } => write!(
                f,
                "this PE needs GPU {ordinal} ({pes_per_gpu} PE(s) per GPU) but {visible} GPU(s) are \
                 visible; start fewer PEs, or share GPUs with `nvshmemrun --pes-per-gpu K` \
                 (or NVSHMEMRS_PES_PER_GPU=K under mpirun/srun)"
            ),
            InitError::MpsFailed { action, error, mps } => {
                write!(
                    f,
                    "CUDA failed while {action}: {error}. {}",
                    mps_failed(mps)
                )
            }
            InitError::AlreadyInitialized => write!(
                f,
                "NVSHMEM is already initialised in this process; it can be initialised once per \
                 process: keep the first `Nvshmem` handle and pass it by reference"
            ),
            InitError::HeapNotSized { value } => write!(
                f,
                "cannot size the symmetric heap: other threads run in this process, and setting \
                 NVSHMEM_SYMMETRIC_SIZE beside them is not sound; initialise NVSHMEM before \
                 starting threads, or set NVSHMEM_SYMMETRIC_SIZE={value} in the environment"
            ),
            InitError::NoBootstrapPlugin { failures } => {
                write!(
                    f,
                    "no NVSHMEM bootstrap plugin for this process manager can be loaded:"
                )?;
                for (plugin, reason) in failures {
                    write!(f, "\n  - {plugin}: {reason}")?;
                }
                write!(
                    f,
                    "\nStart the job with nvshmemrun on one machine, or choose a bootstrap that works \
                     here with NVSHMEM_BOOTSTRAP (e.g. MPI) and NVSHMEM_BOOTSTRAP_PMI"
                )
            }
            InitError::PeEnvironment(error) => write!(f, "{error}"),
            InitError::Rendezvous(error) => write!(f, "{error}"),
            InitError::Io { action, error } => write!(f, "{action} failed: {error}"),
            InitError::InitTimeout { why } => write!(f, "{why}"),
            InitError::UniqueIdLength { found, expected } => write!(
                f,
                "the unique id read back has {found} byte(s) but an NVSHMEM unique id has \
                 {expected}; pass exactly the bytes UniqueId::as_bytes gave on rank 0 (a truncated \
                 file or message, or an id from another NVSHMEM version)"
            ),
            InitError::UniqueIdVersion { found, expected } => write!(
                f,
                "the bytes are not an NVSHMEM unique id: they start with version word {found}, \
                 expected {expected}; pass exactly the bytes UniqueId::as_bytes gave on rank 0, \
                 made by the same NVSHMEM major version"
            ),
            InitError::PeMismatch { expected, actual } => write!(
                f,
                "the launcher made this PE {} of {}, but NVSHMEM started it as PE {} of {}: \
                 NVSHMEM took its bootstrap from the environment; unset NVSHMEM_BOOTSTRAP when \
                 starting with nvshmemrun",
                expected.0, expected.1, actual.0, actual.1
            ),
            InitError::Incomplete {
                status,
                transport_settings,
            } => {
                write!(
                    f,
                    "NVSHMEM bootstrapped this PE but did not finish initialising (nvshmemx_init_status: \
                     {status:?}), usually because no transport reaches every other PE. This PE's \
                     transport settings: "
                )?;
                if transport_settings.is_empty() {
                    write!(f, "none set (NVSHMEM's defaults)")?;
                }
                for (i, (name, value)) in transport_settings.iter().enumerate() {
                    write!(f, "{}{name}={value}", if i == 0 { "" } else { ", " })?;
                }
                write!(
                    f,
                    ". PEs on this machine reach each other through P2P between GPUs unless \
                     NVSHMEM_DISABLE_P2P is set, other machines through NVSHMEM_REMOTE_TRANSPORT \
                     (default ibrc; none turns it off): unset NVSHMEM_DISABLE_P2P, or choose a remote \
                     transport this machine has. NVSHMEM_DEBUG=INFO prints NVSHMEM's own reason"
                )
            }
        }
    }
}

impl std::error::Error for InitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InitError::Library(error) => Some(error),
            InitError::MpsFailed { error, .. } => Some(error),
            InitError::PeEnvironment(error) => Some(error),
            InitError::Rendezvous(error) => Some(error),
            InitError::Io { error, .. } => Some(error),
            InitError::NoCudaDriver
            | InitError::NoGpu
            | InitError::TooFewGpus { .. }
            | InitError::AlreadyInitialized
            | InitError::HeapNotSized { .. }
            | InitError::NoBootstrapPlugin { .. }
            | InitError::InitTimeout { .. }
            | InitError::UniqueIdLength { .. }
            | InitError::UniqueIdVersion { .. }
            | InitError::PeMismatch { .. }
            | InitError::Incomplete { .. } => None,
        }
    }
}

/// What [`InitError::MpsFailed`] says beside the driver's error.
fn mps_failed(mps: &nvshmem_pe_env::mps::Mps) -> String {
    format!(
        "MPS is in use ({mps}) and its server is in a failed state: a PE that died while its \
         kernel ran (or a kernel that faulted) leaves the server refusing every later client. \
         Restart MPS: {}",
        nvshmem_pe_env::mps::RESTART
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_incomplete_init_names_the_status_and_the_transport_settings() {
        let error = InitError::Incomplete {
            status: crate::InitStatus::Bootstrapped,
            transport_settings: vec![
                ("NVSHMEM_DISABLE_P2P", "1".into()),
                ("NVSHMEM_REMOTE_TRANSPORT", "none".into()),
            ],
        };
        let message = error.to_string();
        for part in [
            "did not finish initialising (nvshmemx_init_status: Bootstrapped)",
            "no transport reaches every other PE",
            "settings: NVSHMEM_DISABLE_P2P=1, NVSHMEM_REMOTE_TRANSPORT=none.",
            "unset NVSHMEM_DISABLE_P2P",
        ] {
            assert!(message.contains(part), "no `{part}` in: {message}");
        }
        assert!(!message.contains("device library"), "{message}");
        let error = InitError::Incomplete {
            status: crate::InitStatus::NotInitialized,
            transport_settings: Vec::new(),
        };
        assert!(error.to_string().contains("settings: none set"), "{error}");
    }

    #[test]
    fn a_failed_mps_server_is_named_with_the_way_out() {
        // The driver's own text of the error needs the driver; the advice beside it does not.
        let mps = nvshmem_pe_env::mps::Mps::Pipe("/tmp/mps-pipes".into());
        let hint = mps_failed(&mps);
        for part in [
            "MPS is in use (control pipe in /tmp/mps-pipes)",
            "failed state",
            "echo quit | nvidia-cuda-mps-control",
            "nvidia-cuda-mps-control -d",
        ] {
            assert!(hint.contains(part), "no `{part}` in: {hint}");
        }
    }
}
