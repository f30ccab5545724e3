//! An NVSHMEM installation: where its libraries and headers are, and its release, read from its
//! version header.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::{Attempt, HOST_LIBRARY_NAMES, Source};

/// An NVSHMEM installation: a library folder (host library, bootstrap plugins, device bitcode) and
/// an include folder. Most installs keep both in one prefix (`lib/`, `include/`); NVIDIA's system
/// packages put them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    root: PathBuf,
    lib_dir: PathBuf,
    include_dir: PathBuf,
    source: Source,
}

/// An NVSHMEM release number, as in `NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major release; the device bitcode and host library must agree on it.
    pub major: u32,
    /// Minor release.
    pub minor: u32,
    /// Patch release.
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

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
    /// An installation rooted at `root` (holding `lib/` and `include/`), if it holds NVSHMEM's
    /// host library.
    ///
    /// ```no_run
    /// let install = nvshmem_locate::Install::at("/opt/nvshmem", nvshmem_locate::Source::HomeVariable);
    /// assert!(install.is_ok());
    /// ```
    pub fn at(root: impl Into<PathBuf>, source: Source) -> Result<Install, Attempt> {
        let root = root.into();
        Install {
            lib_dir: root.join("lib"),
            include_dir: root.join("include"),
            root,
            source,
        }
        .checked(|| format!("no lib/{} there", HOST_LIBRARY_NAMES[0]))
    }

    /// An installation whose libraries and headers live in separate folders, as NVIDIA's system
    /// packages lay them out, if `lib_dir` holds NVSHMEM's host library. Its [`root`](Self::root)
    /// is `lib_dir`.
    ///
    /// ```no_run
    /// use nvshmem_locate::{Install, Source};
    /// let install = Install::split(
    ///     "/usr/lib/x86_64-linux-gnu/nvshmem/13",
    ///     "/usr/include/nvshmem_13",
    ///     Source::SystemPackage,
    /// );
    /// assert!(install.is_ok());
    /// ```
    pub fn split(
        lib_dir: impl Into<PathBuf>,
        include_dir: impl Into<PathBuf>,
        source: Source,
    ) -> Result<Install, Attempt> {
        let lib_dir = lib_dir.into();
        Install {
            root: lib_dir.clone(),
            lib_dir,
            include_dir: include_dir.into(),
            source,
        }
        .checked(|| format!("no {} there", HOST_LIBRARY_NAMES[0]))
    }

    /// `self` if its host library is present, else why not.
    fn checked(self, missing: impl FnOnce() -> String) -> Result<Install, Attempt> {
        if self.host_library().is_some() {
            Ok(self)
        } else {
            Err(Attempt {
                tried: self.root.display().to_string(),
                reason: missing(),
            })
        }
    }

    /// The folder that names the installation: the prefix holding `lib/` and `include/`, or for
    /// a [`split`](Self::split) install its library folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How it was found.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The folder holding the host library, the bootstrap plugins and the device bitcode.
    pub fn lib_dir(&self) -> PathBuf {
        self.lib_dir.clone()
    }

    /// The folder holding `nvshmem.h`.
    pub fn include_dir(&self) -> PathBuf {
        self.include_dir.clone()
    }

    /// The host library's path, if present.
    pub fn host_library(&self) -> Option<PathBuf> {
        HOST_LIBRARY_NAMES
            .iter()
            .map(|name| self.lib_dir.join(name))
            .find(|path| path.is_file())
    }

    /// The release, read from `non_abi/nvshmem_version.h` in the include folder.
    pub fn version(&self) -> Result<Version, VersionError> {
        let header = self.include_dir.join("non_abi").join("nvshmem_version.h");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_header_without_a_field_is_an_error() {
        let error = parse_version_header("#define NVSHMEM_VENDOR_MAJOR_VERSION 3\n").unwrap_err();
        assert!(error.contains("MINOR"), "{error}");
    }

    proptest::proptest! {
        /// The same property as the `nvshmem_version` fuzz target: any text is a version or an
        /// error, and a version reads back from the header it would be written as.
        #[test]
        fn any_header_text_is_a_version_or_an_error(
            text in "(#define NVSHMEM_VENDOR_(MAJOR|MINOR|PATCH)_VERSION [0-9 x-]{0,12}\n|.{0,20}\n){0,6}",
        ) {
            if let Ok(version) = parse_version_header(&text) {
                let header = format!(
                    "#define NVSHMEM_VENDOR_MAJOR_VERSION {}\n#define NVSHMEM_VENDOR_MINOR_VERSION {}\n\
                     #define NVSHMEM_VENDOR_PATCH_VERSION {}\n",
                    version.major, version.minor, version.patch
                );
                proptest::prop_assert_eq!(parse_version_header(&header), Ok(version));
            }
        }
    }
}
