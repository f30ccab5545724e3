//! The host crate's errors, one type per layer ([`InitError`], [`MemoryError`], [`ModuleError`],
//! [`KernelLaunchError`], [`GraphError`], [`TeamError`], and [`EnvironmentError`] for NVSHMEM's
//! variables), gathered in [`Error`] with what any layer can meet: a failed CUDA or NVSHMEM call,
//! a function the loaded library lacks, a stream of another context. NVSHMEM has no error-string
//! API, so every message says what failed and what to do about it.

mod graph;
mod init;
mod launch;
mod memory;
mod module;
mod team;

pub use graph::GraphError;
pub use init::InitError;
pub use launch::KernelLaunchError;
pub use memory::{AllocationRefusal, AllocationRequest, MemoryError};
pub use module::ModuleError;
pub use team::TeamError;

use crate::environment::EnvironmentError;
use std::fmt;

/// Everything that can go wrong on the host side: a layer's error, or what any layer can meet.
///
/// Match on a layer's variant through its wrapper:
///
/// ```no_run
/// use nvshmem_host::{Error, MemoryError, Nvshmem};
/// let nvshmem = Nvshmem::init()?;
/// match nvshmem.alloc::<f32>(1 << 40) {
///     Err(Error::Memory(MemoryError::HeapExhausted { bytes, .. })) => eprintln!("{bytes} B do not fit"),
///     other => drop(other?),
/// }
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// NVSHMEM could not start.
    Init(InitError),
    /// A symmetric allocation, copy or operation was refused.
    Memory(MemoryError),
    /// A PTX module cannot be loaded or used.
    Module(ModuleError),
    /// A kernel launch was refused before anything ran.
    Launch(KernelLaunchError),
    /// A graph capture cannot be made.
    Graph(GraphError),
    /// A PE or team split that the team does not have.
    Team(TeamError),
    /// An `NVSHMEM_*` variable holds a value NVSHMEM cannot read (see [`crate::environment`]).
    Environment(EnvironmentError),
    /// A CUDA driver call failed.
    Cuda {
        /// What was being done.
        action: String,
        /// The driver's error.
        error: cudarc::driver::DriverError,
    },
    /// An NVSHMEM call returned a non-zero status.
    Nvshmem {
        /// The call.
        call: &'static str,
        /// Its status code.
        status: i32,
        /// What to check.
        hint: &'static str,
    },
    /// The loaded NVSHMEM host library lacks a function this crate needs for the call.
    MissingSymbol {
        /// The function.
        symbol: &'static str,
        /// The loaded library's release.
        version: nvshmem_locate::Version,
    },
    /// A CUDA stream or memory of another context was passed where NVSHMEM's is needed.
    ForeignContext {
        /// What was passed (`the stream`, `the allocation`).
        what: &'static str,
        /// The GPU of its context.
        gpu: usize,
        /// The GPU of NVSHMEM's context.
        nvshmem_gpu: usize,
    },
    /// Errors raised while dropping resources (module unload, finalize), reported later.
    Deferred(Vec<Error>),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Init(error) => write!(f, "{error}"),
            Error::Memory(error) => write!(f, "{error}"),
            Error::Module(error) => write!(f, "{error}"),
            Error::Launch(error) => write!(f, "{error}"),
            Error::Graph(error) => write!(f, "{error}"),
            Error::Team(error) => write!(f, "{error}"),
            Error::Environment(error) => write!(f, "{error}"),
            Error::Cuda { action, error } => {
                write!(f, "CUDA failed while {action}: {error}")?;
                let hint = launch::after_kernel_failure(error.0).or(graph::inside_capture(error.0));
                match hint {
                    Some(hint) => write!(f, "; {hint}"),
                    None => Ok(()),
                }
            }
            Error::Nvshmem { call, status, hint } => {
                write!(f, "{call} failed with status {status}: {hint}")
            }
            Error::MissingSymbol { symbol, version } => match nvshmem_sys::first_release(symbol) {
                Some(since) => write!(
                    f,
                    "the loaded NVSHMEM host library (NVSHMEM {version}) has no {symbol}, which \
                     NVSHMEM {since} added; use NVSHMEM {since} or later (point NVSHMEM_HOME at \
                     it; {})",
                    nvshmem_locate::newer_release_hint()
                ),
                None => write!(
                    f,
                    "the loaded NVSHMEM host library (NVSHMEM {version}) has no {symbol}; use a \
                     newer NVSHMEM release that has it (point NVSHMEM_HOME at it)"
                ),
            },
            Error::ForeignContext {
                what,
                gpu,
                nvshmem_gpu,
            } => write!(
                f,
                "{what} belongs to a CUDA context (of GPU {gpu}) other than NVSHMEM's (of GPU \
                 {nvshmem_gpu}); create it from Nvshmem::context(), or start NVSHMEM on your \
                 context with Nvshmem::init_on"
            ),
            Error::Deferred(errors) => {
                write!(f, "{} error(s) while releasing resources:", errors.len())?;
                errors
                    .iter()
                    .try_for_each(|error| write!(f, "\n  - {error}"))
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // A layer's error is shown as itself, so its cause is its own source.
        match self {
            Error::Init(error) => error.source(),
            Error::Memory(error) => error.source(),
            Error::Module(error) => error.source(),
            Error::Launch(error) => error.source(),
            Error::Graph(error) => error.source(),
            Error::Team(error) => error.source(),
            Error::Environment(error) => error.source(),
            Error::Cuda { error, .. } => Some(error),
            Error::Nvshmem { .. }
            | Error::MissingSymbol { .. }
            | Error::ForeignContext { .. }
            | Error::Deferred(_) => None,
        }
    }
}

/// `From` for each layer's error, and for the errors of the crates beneath that only starting
/// NVSHMEM meets (so `?` lifts them into [`Error`]).
macro_rules! wrap {
    ($($from:ty => $variant:expr),* $(,)?) => {$(
        impl From<$from> for Error {
            fn from(error: $from) -> Self {
                $variant(error)
            }
        }
    )*};
}

wrap! {
    InitError => Error::Init,
    MemoryError => Error::Memory,
    ModuleError => Error::Module,
    KernelLaunchError => Error::Launch,
    GraphError => Error::Graph,
    TeamError => Error::Team,
    EnvironmentError => Error::Environment,
    nvshmem_sys::LoadError => |error| Error::Init(InitError::Library(error)),
    nvshmem_pe_env::PeEnvError => |error| Error::Init(InitError::PeEnvironment(error)),
    nvshmem_pe_env::rendezvous::RendezvousError => |error| Error::Init(InitError::Rendezvous(error)),
}

/// Attaches what was being done to a CUDA driver error, making it an [`Error::Cuda`]: for code
/// that calls cudarc directly beside this crate (`result.doing("zeroing the counters")?`).
pub trait DriverErrorContext<T> {
    /// Wraps the error with `action` ("loading the PTX module", …).
    fn doing(self, action: impl Into<String>) -> Result<T, Error>;
}

impl<T> DriverErrorContext<T> for Result<T, cudarc::driver::DriverError> {
    fn doing(self, action: impl Into<String>) -> Result<T, Error> {
        self.map_err(|error| Error::Cuda {
            action: action.into(),
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn the_cause_of_a_wrapped_error_is_its_source() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no folder");
        let init = InitError::Io {
            action: "publishing the unique id to the other PEs",
            error: io(),
        };
        assert_eq!(init.source().unwrap().to_string(), "no folder");
        // Through the crate's error, which shows the layer's error as itself.
        let error = Error::from(InitError::Io {
            action: "publishing the unique id to the other PEs",
            error: io(),
        });
        assert_eq!(error.source().unwrap().to_string(), "no folder");
        assert!(Error::from(InitError::NoGpu).source().is_none());
    }

    #[test]
    fn a_function_newer_than_the_library_names_the_release_that_added_it() {
        let old = nvshmem_locate::Version {
            major: 3,
            minor: 4,
            patch: 5,
        };
        let message = Error::MissingSymbol {
            symbol: "nvshmemx_flush_on_stream",
            version: old,
        }
        .to_string();
        assert!(
            message.contains(
                "(NVSHMEM 3.4.5) has no nvshmemx_flush_on_stream, which NVSHMEM 3.7 added; use \
                 NVSHMEM 3.7 or later"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_layers_error_reads_as_its_own() {
        let error = Error::from(TeamError::InvalidPe { pe: 4, n_pes: 4 });
        assert_eq!(
            error.to_string(),
            TeamError::InvalidPe { pe: 4, n_pes: 4 }.to_string()
        );
    }
}
