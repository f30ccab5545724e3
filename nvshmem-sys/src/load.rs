//! Finding and loading NVSHMEM's host library at run time.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use nvshmem_locate::Attempt;

use crate::bindings::NvshmemHost;

/// The host library's file name and soname; the system loader is asked for it as a last resort.
pub const HOST_LIBRARY: &str = "libnvshmem_host.so.3";

/// How to get NVSHMEM, for error messages: the nvshmem-rs checkout's `x deps` only where these
/// crates were built from one.
fn install_fix() -> String {
    let deps = nvshmem_locate::checkout().map(|checkout| {
        format!(
            "or run `{}` (installs nvidia-nvshmem-cu13==3.4.5 into {}, where the search looks), ",
            nvshmem_locate::deps_command(&checkout),
            checkout.join(nvshmem_locate::PROJECT_LOCAL_DIR).display()
        )
    });
    format!(
        "set NVSHMEM_HOME=/path/to/nvshmem (the folder whose lib/ holds libnvshmem_host.so.3), \
         {}or `pip install nvidia-nvshmem-cu13==3.4.5`, or add the library's folder to \
         LD_LIBRARY_PATH",
        deps.unwrap_or_default()
    )
}

/// NVSHMEM's host library could not be loaded. [`Display`](fmt::Display) lists every place tried
/// and says how to fix it.
///
/// ```
/// let error = nvshmem_sys::load_from("/nonexistent/libnvshmem_host.so.3").unwrap_err();
/// assert!(matches!(error, nvshmem_sys::LoadError::NotFound { .. }));
/// assert!(error.to_string().contains("NVSHMEM_HOME"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// No NVSHMEM host library was found anywhere.
    NotFound {
        /// Every place tried, in order, and why it was rejected.
        attempts: Vec<Attempt>,
    },
    /// A host library was found, but the dynamic loader could not load it because `libcuda.so.1`,
    /// the NVIDIA driver's CUDA library, is missing: this machine has no (usable) NVIDIA driver.
    DriverMissing {
        /// Every place tried, in order, and why it was rejected.
        attempts: Vec<Attempt>,
    },
    /// A host library was found, but the dynamic loader refused it for another reason (a damaged
    /// file, another architecture, a missing dependency other than the driver).
    Unloadable {
        /// Every place tried, in order, and why it was rejected.
        attempts: Vec<Attempt>,
    },
}

impl LoadError {
    /// Every place tried, in order, and why it was rejected.
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            LoadError::NotFound { attempts }
            | LoadError::DriverMissing { attempts }
            | LoadError::Unloadable { attempts } => attempts,
        }
    }

    /// The error for a list of failures: the most telling one decides the kind.
    fn from_failures(failures: Vec<Failure>) -> LoadError {
        let worst = failures.iter().map(|failure| failure.outcome).max();
        let attempts = failures
            .into_iter()
            .map(|failure| failure.attempt)
            .collect();
        match worst {
            Some(Outcome::DriverMissing) => LoadError::DriverMissing { attempts },
            Some(Outcome::Refused) => LoadError::Unloadable { attempts },
            Some(Outcome::Absent) | None => LoadError::NotFound { attempts },
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headline = match self {
            LoadError::NotFound { .. } => {
                "NVSHMEM's host library (libnvshmem_host.so.3) was not found."
            }
            LoadError::DriverMissing { .. } => {
                "NVSHMEM's host library was found but cannot be loaded: it needs libcuda.so.1, the \
                 NVIDIA driver's CUDA library, which this machine lacks."
            }
            LoadError::Unloadable { .. } => {
                "NVSHMEM's host library was found but the dynamic loader refused it."
            }
        };
        writeln!(f, "{headline} Tried:")?;
        for attempt in self.attempts() {
            writeln!(f, "  - {}: {}", attempt.tried, attempt.reason)?;
        }
        match self {
            LoadError::NotFound { .. } => write!(f, "Fix: {}.", install_fix()),
            LoadError::DriverMissing { .. } => write!(
                f,
                "Fix: run on a machine with an NVIDIA GPU and its driver installed, so that the \
                 loader finds libcuda.so.1 (in a container, pass the GPUs and driver through, e.g. \
                 `docker run --gpus all`)."
            ),
            LoadError::Unloadable { .. } => write!(
                f,
                "Fix: replace the file above with an intact NVSHMEM 3 host library for this \
                 machine: {}.",
                install_fix()
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// Shows only the type: the library handle and the ~1500 function pointers say nothing useful.
impl fmt::Debug for NvshmemHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NvshmemHost").finish_non_exhaustive()
    }
}

/// How one try to open a library ended, least telling first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// There was no such file.
    Absent,
    /// The file is there, but the loader refused it.
    Refused,
    /// The file is there, but the NVIDIA driver's `libcuda.so.1` is not.
    DriverMissing,
}

/// One failed try.
#[derive(Debug)]
struct Failure {
    outcome: Outcome,
    attempt: Attempt,
}

/// Why the loader's message `reason` for `target` (a path, or a bare name to search) means failure.
fn classify(target: &OsStr, reason: &str) -> Outcome {
    let target_text = target.to_string_lossy();
    let is_path = target_text.contains('/');
    if reason.contains("libcuda.so") {
        Outcome::DriverMissing
    } else if (is_path && !Path::new(target).exists())
        || (reason.starts_with(&format!("{target_text}: "))
            && reason.contains("cannot open shared object file"))
    {
        Outcome::Absent
    } else {
        Outcome::Refused
    }
}

/// Opens `target` (a path, or a bare file name for the system loader to search) and looks up
/// every bound function; `tried` describes it in error messages.
fn open(target: &OsStr, tried: String) -> Result<NvshmemHost, Failure> {
    // SAFETY: loading a library runs its initialization code; `target` is, by the contract of this
    // crate's loading functions, NVSHMEM's host library, whose initializers only set up its own
    // state. Each function is then looked up with the signature its header declares (bindgen's
    // generated code, from the NVSHMEM 3.4.5 headers), and one that is absent stays an `Err`.
    match unsafe { NvshmemHost::new(target) } {
        Ok(host) => Ok(host),
        Err(error) => {
            let reason = error.to_string();
            Err(Failure {
                outcome: classify(target, &reason),
                attempt: Attempt { tried, reason },
            })
        }
    }
}

/// Loads NVSHMEM's host library from `path`, uncached (each call loads it again; the dynamic loader
/// shares one copy). Most code wants [`library`], which finds the library and loads it once.
///
/// `path` should be a path to `libnvshmem_host.so.3`; a bare file name is searched for by the
/// system loader (`LD_LIBRARY_PATH`, then the loader cache). The file must be NVSHMEM's host
/// library: loading runs its initialization code, and its functions are called with the
/// signatures of NVSHMEM 3.8.0's headers. A function the file does not export is an `Err` in its
/// field of [`NvshmemHost`] (and its method panics, naming the release that added it), so check
/// fields such as `host.nvshmemx_flush_on_stream.is_ok()` before relying on newer functions
/// ([`first_release`](crate::first_release) says which those are).
///
/// ```
/// let error = nvshmem_sys::load_from("/nonexistent/libnvshmem_host.so.3").unwrap_err();
/// assert!(error.to_string().contains("/nonexistent/libnvshmem_host.so.3"));
/// ```
pub fn load_from(path: impl AsRef<Path>) -> Result<NvshmemHost, LoadError> {
    let path = path.as_ref();
    open(path.as_os_str(), path.display().to_string())
        .map_err(|failure| LoadError::from_failures(vec![failure]))
}

/// The loaded library and the file it came from.
struct Loaded {
    host: NvshmemHost,
    path: PathBuf,
}

/// The result of the one search and load that [`library`] does.
static LIBRARY: OnceLock<Result<Loaded, LoadError>> = OnceLock::new();

/// NVSHMEM's host library, found and loaded on first use and then kept for the life of the process.
///
/// It looks, in order:
/// 1. where [`nvshmem_locate::find`] points (`NVSHMEM_HOME`, else a project-local
///    `.deps/python/nvidia/nvshmem` at the root of the running executable's project, else the one
///    of the nvshmem-rs checkout these crates were built from, else Python's `nvidia.nvshmem`,
///    system packages, HPC SDK): its host library; this is the install whose device bitcode
///    `nvshmem-builder` links into kernels, so the two match. The current folder is never
///    searched, nor any folder that another user can write (see [`nvshmem_locate::trusted`]);
///    a program started from a scratch folder cannot be handed someone else's library;
/// 2. then, as a last resort, `libnvshmem_host.so.3` through the system loader (`LD_LIBRARY_PATH`,
///    then the loader cache).
///
/// The outcome, success or error, is computed once and cached. Call functions through the
/// returned [`NvshmemHost`]'s `unsafe` methods, named as in C.
///
/// ```no_run
/// let lib = nvshmem_sys::library()?;
/// let (mut major, mut minor, mut patch) = (0, 0, 0);
/// // SAFETY: the pointers are valid for writes; this query works before NVSHMEM is initialized.
/// unsafe { lib.nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch) };
/// println!("NVSHMEM {major}.{minor}.{patch} from {:?}", nvshmem_sys::library_path());
/// # Ok::<(), nvshmem_sys::LoadError>(())
/// ```
pub fn library() -> Result<&'static NvshmemHost, LoadError> {
    match LIBRARY.get_or_init(load_default) {
        Ok(loaded) => Ok(&loaded.host),
        Err(error) => Err(error.clone()),
    }
}

/// The file that [`library`] loaded (loading it first if need be), or `None` if it failed.
///
/// ```no_run
/// if let Some(path) = nvshmem_sys::library_path() {
///     println!("NVSHMEM host library: {}", path.display());
/// }
/// ```
pub fn library_path() -> Option<&'static Path> {
    match LIBRARY.get_or_init(load_default) {
        Ok(loaded) => Some(&loaded.path),
        Err(_) => None,
    }
}

/// The search that [`library`] does.
fn load_default() -> Result<Loaded, LoadError> {
    // The program's own project only: the current folder is wherever the user happens to be.
    let start_dirs: Vec<PathBuf> = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .into_iter()
        .collect();

    let mut failures = Vec::new();
    match nvshmem_locate::find(&start_dirs) {
        Ok(install) => match install.host_library() {
            Some(path) => match open(path.as_os_str(), path.display().to_string()) {
                Ok(host) => return Ok(Loaded { host, path }),
                Err(failure) => failures.push(failure),
            },
            None => failures.push(Failure {
                outcome: Outcome::Absent,
                attempt: Attempt {
                    tried: install.root().display().to_string(),
                    reason: format!("no lib/{HOST_LIBRARY} there any more"),
                },
            }),
        },
        Err(not_found) => failures.extend(not_found.attempts.into_iter().map(|attempt| Failure {
            outcome: Outcome::Absent,
            attempt,
        })),
    }

    let tried = format!("{HOST_LIBRARY} through the system loader (LD_LIBRARY_PATH, ld.so.cache)");
    match open(OsStr::new(HOST_LIBRARY), tried) {
        Ok(host) => Ok(Loaded {
            host,
            path: loaded_file(HOST_LIBRARY),
        }),
        Err(failure) => {
            failures.push(failure);
            Err(LoadError::from_failures(failures))
        }
    }
}

/// Where the loader found the library it loaded by file name `name` (from `/proc/self/maps`),
/// or just `name` if that cannot be told.
fn loaded_file(name: &str) -> PathBuf {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|line| line.find('/').map(|start| Path::new(&line[start..])))
        .find(|path| path.file_name() == Some(OsStr::new(name)))
        .map_or_else(|| PathBuf::from(name), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_driver_is_told_apart_from_a_missing_library() {
        let target = OsStr::new("/opt/nvshmem/lib/libnvshmem_host.so.3");
        let no_driver = "libcuda.so.1: cannot open shared object file: No such file or directory";
        assert_eq!(classify(target, no_driver), Outcome::DriverMissing);

        let absent = "/opt/nvshmem/lib/libnvshmem_host.so.3: cannot open shared object file: \
                      No such file or directory";
        assert_eq!(classify(target, absent), Outcome::Absent);

        let by_name = OsStr::new(HOST_LIBRARY);
        let not_on_path = "libnvshmem_host.so.3: cannot open shared object file: No such file";
        assert_eq!(classify(by_name, not_on_path), Outcome::Absent);
        let other_dependency = "libstdc++.so.6: cannot open shared object file: No such file";
        assert_eq!(classify(by_name, other_dependency), Outcome::Refused);
    }

    #[test]
    fn the_most_telling_failure_decides_the_kind() {
        let failure = |outcome| Failure {
            outcome,
            attempt: Attempt {
                tried: format!("{outcome:?}"),
                reason: "because".into(),
            },
        };
        let error = LoadError::from_failures(vec![
            failure(Outcome::Absent),
            failure(Outcome::DriverMissing),
            failure(Outcome::Refused),
        ]);
        assert!(
            matches!(error, LoadError::DriverMissing { .. }),
            "{error:?}"
        );
        assert_eq!(error.attempts().len(), 3);
        let message = error.to_string();
        assert!(message.contains("  - Absent: because"), "{message}");
        assert!(message.contains("libcuda.so.1"), "{message}");
        assert!(message.contains("NVIDIA driver"), "{message}");

        let error =
            LoadError::from_failures(vec![failure(Outcome::Absent), failure(Outcome::Refused)]);
        assert!(matches!(error, LoadError::Unloadable { .. }), "{error:?}");
        assert!(
            error
                .to_string()
                .contains("pip install nvidia-nvshmem-cu13==3.4.5")
        );
        let error = LoadError::from_failures(vec![failure(Outcome::Absent)]);
        assert!(matches!(error, LoadError::NotFound { .. }), "{error:?}");
    }

    #[test]
    fn loaded_file_falls_back_to_the_name() {
        assert_eq!(
            loaded_file("no-such-library.so.9"),
            PathBuf::from("no-such-library.so.9")
        );
    }
}
