//! Finding an NVSHMEM installation.
//!
//! The builder (which links NVSHMEM's device bitcode into kernels) and `nvshmem-sys` (which loads
//! NVSHMEM's host library at run time) must agree on which installation they use, because the device
//! bitcode and the host library have to come from the same NVSHMEM release. Both call [`find`], which
//! tries, in this order:
//!
//! 1. `NVSHMEM_HOME`, if set. A set but unusable `NVSHMEM_HOME` is an error: it is never skipped.
//! 2. A project-local install: `.deps/python/nvidia/nvshmem` in a start folder or one of its ancestors
//!    (this is where the project's `./x` script installs the `nvidia-nvshmem-cu13` wheel).
//! 3. Python's site-packages: the folder of the `nvidia.nvshmem` package as `python3` reports it.
//!
//! When nothing is found, [`NotFound`] lists every place tried and why it was rejected.
//!
//! ```no_run
//! let install = nvshmem_locate::find(&[std::path::Path::new(".")])?;
//! println!("NVSHMEM {} at {}", install.version()?, install.root().display());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that names an NVSHMEM installation explicitly.
pub const HOME_VAR: &str = "NVSHMEM_HOME";

/// Where a project-local install lives, relative to a project's root.
pub const PROJECT_LOCAL_DIR: &str = ".deps/python/nvidia/nvshmem";

/// File names of NVSHMEM's host library, most specific first (the wheels ship only the versioned one).
pub const HOST_LIBRARY_NAMES: [&str; 2] = ["libnvshmem_host.so.3", "libnvshmem_host.so"];

/// How an [`Install`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From the `NVSHMEM_HOME` environment variable.
    HomeVariable,
    /// From a project-local `.deps` folder.
    ProjectLocal,
    /// From Python's site-packages (`nvidia.nvshmem`).
    PythonPackage,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::HomeVariable => "NVSHMEM_HOME",
            Source::ProjectLocal => "project-local install",
            Source::PythonPackage => "Python package nvidia.nvshmem",
        })
    }
}

/// An NVSHMEM installation: a folder with `lib/` (host library, device bitcode) and `include/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    root: PathBuf,
    source: Source,
}

/// An NVSHMEM release number, as in `NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major release; the device bitcode and host library must agree on it.
    pub major: u32,
    /// Minor release; the device bitcode's must not be newer than the host library's.
    pub minor: u32,
    /// Patch release.
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Version {
    /// Whether device code built against `self` may run with host library `host`.
    ///
    /// NVSHMEM's rule: same major version, device minor version not newer than the host's.
    ///
    /// ```
    /// use nvshmem_locate::Version;
    /// let v = |major, minor| Version { major, minor, patch: 0 };
    /// assert!(v(3, 4).device_compatible_with(v(3, 5)));
    /// assert!(!v(3, 5).device_compatible_with(v(3, 4)));
    /// assert!(!v(2, 4).device_compatible_with(v(3, 4)));
    /// ```
    pub fn device_compatible_with(self, host: Version) -> bool {
        self.major == host.major && self.minor <= host.minor
    }
}

/// A place [`find`] looked, and why it did not use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// What was tried (a path or a command).
    pub tried: String,
    /// Why it was rejected.
    pub reason: String,
}

/// No NVSHMEM installation was found; lists every attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// Every place tried, in order.
    pub attempts: Vec<Attempt>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "NVSHMEM was not found. Tried:")?;
        for attempt in &self.attempts {
            writeln!(f, "  - {}: {}", attempt.tried, attempt.reason)?;
        }
        write!(
            f,
            "Fix: set {HOME_VAR} to an NVSHMEM install (the folder holding lib/libnvshmem_host.so.3), \
             or run `./x deps` in this project (installs the nvidia-nvshmem-cu13 3.4.5 wheel into \
             {PROJECT_LOCAL_DIR}), or `pip install nvidia-nvshmem-cu13`."
        )
    }
}

impl std::error::Error for NotFound {}

/// Reading an installation's version failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionError {
    /// The header that was read.
    pub header: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read the NVSHMEM version from {}: {}; the install looks incomplete, reinstall it",
            self.header.display(),
            self.reason
        )
    }
}

impl std::error::Error for VersionError {}

impl Install {
    /// An installation rooted at `root`, if it holds NVSHMEM's host library.
    ///
    /// ```no_run
    /// let install = nvshmem_locate::Install::at("/opt/nvshmem", nvshmem_locate::Source::HomeVariable);
    /// assert!(install.is_ok());
    /// ```
    pub fn at(root: impl Into<PathBuf>, source: Source) -> Result<Install, Attempt> {
        let root = root.into();
        let install = Install { root, source };
        if install.host_library().is_some() {
            Ok(install)
        } else {
            Err(Attempt {
                tried: install.root.display().to_string(),
                reason: format!("no lib/{} there", HOST_LIBRARY_NAMES[0]),
            })
        }
    }

    /// The installation's root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How it was found.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The folder holding the host library, the bootstrap plugins and the device bitcode.
    pub fn lib_dir(&self) -> PathBuf {
        self.root.join("lib")
    }

    /// The folder holding `nvshmem.h`.
    pub fn include_dir(&self) -> PathBuf {
        self.root.join("include")
    }

    /// The host library's path, if present.
    pub fn host_library(&self) -> Option<PathBuf> {
        HOST_LIBRARY_NAMES
            .iter()
            .map(|name| self.lib_dir().join(name))
            .find(|path| path.is_file())
    }

    /// The release, read from `include/non_abi/nvshmem_version.h`.
    pub fn version(&self) -> Result<Version, VersionError> {
        let header = self.include_dir().join("non_abi").join("nvshmem_version.h");
        let text = std::fs::read_to_string(&header).map_err(|error| VersionError {
            header: header.clone(),
            reason: error.to_string(),
        })?;
        parse_version_header(&text).map_err(|reason| VersionError { header, reason })
    }
}

/// Reads `NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION` from the text of `nvshmem_version.h`.
///
/// ```
/// let text = "#define NVSHMEM_VENDOR_MAJOR_VERSION 3\n\
///             #define NVSHMEM_VENDOR_MINOR_VERSION 4\n\
///             #define NVSHMEM_VENDOR_PATCH_VERSION 5\n";
/// let version = nvshmem_locate::parse_version_header(text).unwrap();
/// assert_eq!(version.to_string(), "3.4.5");
/// ```
pub fn parse_version_header(text: &str) -> Result<Version, String> {
    let field = |name: &str| -> Result<u32, String> {
        let macro_name = format!("NVSHMEM_VENDOR_{name}_VERSION");
        text.lines()
            .filter_map(|line| line.trim().strip_prefix("#define"))
            .filter_map(|rest| rest.trim().strip_prefix(macro_name.as_str()))
            .find_map(|value| value.trim().parse().ok())
            .ok_or_else(|| format!("no numeric `#define {macro_name}`"))
    };
    Ok(Version {
        major: field("MAJOR")?,
        minor: field("MINOR")?,
        patch: field("PATCH")?,
    })
}

/// Finds NVSHMEM: `NVSHMEM_HOME`, then a project-local install above any of `start_dirs`, then Python.
///
/// ```no_run
/// let manifest_dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
/// match nvshmem_locate::find(&[&manifest_dir]) {
///     Ok(install) => println!("using {}", install.root().display()),
///     Err(not_found) => eprintln!("{not_found}"),
/// }
/// ```
pub fn find<P: AsRef<Path>>(start_dirs: &[P]) -> Result<Install, NotFound> {
    find_with(
        std::env::var_os(HOME_VAR).map(PathBuf::from),
        start_dirs,
        python_package_dir,
    )
}

/// [`find`] with its inputs given: the value of `NVSHMEM_HOME`, and how to ask Python.
fn find_with<P: AsRef<Path>>(
    home: Option<PathBuf>,
    start_dirs: &[P],
    ask_python: impl Fn() -> Result<PathBuf, Attempt>,
) -> Result<Install, NotFound> {
    let mut attempts = Vec::new();
    if let Some(home) = home {
        return Install::at(&home, Source::HomeVariable).map_err(|mut attempt| {
            attempt.tried = format!("{HOME_VAR}={}", home.display());
            attempt.reason +=
                " (NVSHMEM_HOME is set, so nothing else was tried; unset it to search)";
            NotFound {
                attempts: vec![attempt],
            }
        });
    }
    attempts.push(Attempt {
        tried: HOME_VAR.into(),
        reason: "not set".into(),
    });
    for start in start_dirs {
        for dir in start.as_ref().ancestors() {
            let candidate = dir.join(PROJECT_LOCAL_DIR);
            if candidate.is_dir() {
                match Install::at(&candidate, Source::ProjectLocal) {
                    Ok(install) => return Ok(install),
                    Err(attempt) => attempts.push(attempt),
                }
            }
        }
        attempts.push(Attempt {
            tried: format!(
                "{PROJECT_LOCAL_DIR} in {} and its parents",
                start.as_ref().display()
            ),
            reason: "no such folder".into(),
        });
    }
    match ask_python() {
        Ok(dir) => match Install::at(&dir, Source::PythonPackage) {
            Ok(install) => return Ok(install),
            Err(attempt) => attempts.push(attempt),
        },
        Err(attempt) => attempts.push(attempt),
    }
    Err(NotFound { attempts })
}

/// Asks `python3` where the `nvidia.nvshmem` package lives.
fn python_package_dir() -> Result<PathBuf, Attempt> {
    const SCRIPT: &str = "import nvidia.nvshmem as m; print(list(m.__path__)[0])";
    let tried = format!("python3 -c '{SCRIPT}'");
    let output = Command::new("python3")
        .args(["-c", SCRIPT])
        .output()
        .map_err(|error| Attempt {
            tried: tried.clone(),
            reason: format!("could not run python3: {error}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last_line = stderr.lines().last().unwrap_or("no output").to_string();
        return Err(Attempt {
            tried,
            reason: last_line,
        });
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_install(dir: &Path) {
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("lib").join(HOST_LIBRARY_NAMES[0]), b"").unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nvshmem-locate-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn no_python() -> Result<PathBuf, Attempt> {
        Err(Attempt {
            tried: "python3".into(),
            reason: "stand-in: absent".into(),
        })
    }

    #[test]
    fn home_variable_wins_and_is_never_skipped() {
        let dir = scratch("home");
        let error = find_with(Some(dir.clone()), &[&dir], no_python).unwrap_err();
        assert_eq!(error.attempts.len(), 1);
        assert!(error.to_string().contains("NVSHMEM_HOME is set"), "{error}");
        fake_install(&dir);
        let install = find_with(Some(dir.clone()), &[&dir], no_python).unwrap();
        assert_eq!(install.source(), Source::HomeVariable);
    }

    #[test]
    fn project_local_install_is_found_from_a_subfolder() {
        let project = scratch("project");
        fake_install(&project.join(PROJECT_LOCAL_DIR));
        let deep = project.join("target/release/examples");
        std::fs::create_dir_all(&deep).unwrap();
        let install = find_with(None, &[&deep], no_python).unwrap();
        assert_eq!(install.source(), Source::ProjectLocal);
        assert_eq!(install.root(), project.join(PROJECT_LOCAL_DIR));
    }

    #[test]
    fn not_found_lists_every_attempt_and_the_fix() {
        let empty = scratch("empty");
        let error = find_with(None, &[&empty], no_python).unwrap_err();
        let message = error.to_string();
        assert_eq!(error.attempts.len(), 3, "{message}");
        assert!(message.contains("NVSHMEM_HOME: not set"), "{message}");
        assert!(message.contains(&empty.display().to_string()), "{message}");
        assert!(message.contains("stand-in: absent"), "{message}");
        assert!(message.contains("Fix: set NVSHMEM_HOME"), "{message}");
    }

    #[test]
    fn version_header_without_a_field_is_an_error() {
        let error = parse_version_header("#define NVSHMEM_VENDOR_MAJOR_VERSION 3\n").unwrap_err();
        assert!(error.contains("MINOR"), "{error}");
    }
}
