//! Finding an NVSHMEM installation.
//!
//! The builder (which links NVSHMEM's device bitcode into kernels) and `nvshmem-sys` (which loads
//! NVSHMEM's host library at run time) must agree on which installation they use, because the device
//! bitcode and the host library have to come from the same NVSHMEM release. Both call [`find`], which
//! tries, in this order:
//!
//! 1. `NVSHMEM_HOME`, if set. A set but unusable `NVSHMEM_HOME` is an error: it is never skipped.
//! 2. A project-local install: `.deps/python/nvidia/nvshmem` at the root of the project of a start
//!    folder (the builder's: the crate being built; the loader's: the running program's), that is
//!    the nearest folder at or above it holding `Cargo.lock` ([`project_root`]). The search never
//!    looks above the project nor in the current folder, and a folder that other users can write
//!    ends it: on a shared machine, `/tmp/.deps` is anybody's.
//! 3. The same folder in the nvshmem-rs [`checkout`] these crates were built from (recorded when
//!    they were compiled), when they depend on one by path: so a project that `./x new` made
//!    outside the checkout builds and runs against the checkout's NVSHMEM, with nothing set.
//! 4. Python's site-packages: the folder of the `nvidia.nvshmem` package as `python3 -I` (isolated:
//!    not from the current folder, `PYTHONPATH` or the user's site-packages) reports it.
//! 5. NVIDIA's system packages `libnvshmem3-cuda-13` and `libnvshmem3-cuda-12` (with their `-dev`
//!    packages for headers and device bitcode), CUDA 13 first. They split the install in two: the
//!    libraries in `/usr/lib/<multiarch triple>/nvshmem/<CUDA major>` (apt: `x86_64-linux-gnu`, or
//!    `aarch64-linux-gnu` on Arm servers, which NVIDIA calls sbsa) or `/usr/lib64/nvshmem/<CUDA
//!    major>` (dnf), the headers in `/usr/include/nvshmem_<CUDA major>`.
//! 6. The NVIDIA HPC SDK: first the one `NVHPC_ROOT` names (the SDK's environment module sets it),
//!    then the newest version in `/opt/nvidia/hpc_sdk/Linux_<arch>/`. In an SDK, each bundled CUDA
//!    version has its own `comm_libs/<CUDA version>/nvshmem`, tried newest CUDA 13 first, then CUDA
//!    12; then `comm_libs/nvshmem`, the SDK's link to its default CUDA version's.
//!
//! Every place found by searching (all but `NVSHMEM_HOME` and `NVHPC_ROOT`, which the user names) is
//! used only when no other user could have put it there: its library folder and each folder above
//! it must be owned by this user or root and writable by nobody else ([`trusted`]). When nothing is
//! found, [`NotFound`] lists every place tried and why it was rejected, those skipped for this
//! reason included.
//! [`find`] logs the install it chose at `debug` through the `log` crate and never prints; a
//! program without a logger loses nothing, because a failure is returned in full.
//!
//! ```no_run
//! let install = nvshmem_locate::find(&[std::path::Path::new(".")])?;
//! println!("NVSHMEM {} at {}", install.version()?, install.root().display());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod install;
mod search;
mod trust;

pub use install::{Install, Version, VersionError, parse_version_header};
pub use search::find;
pub use trust::{PROJECT_MARKER, Untrusted, project_root, trusted};

use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable that names an NVSHMEM installation explicitly.
pub const HOME_VAR: &str = "NVSHMEM_HOME";

/// The environment variable that names an NVIDIA HPC SDK (`…/Linux_x86_64/25.11`); the SDK's
/// environment module sets it.
pub const HPC_SDK_VAR: &str = "NVHPC_ROOT";

/// Where a project-local install lives, relative to a project's root ([`project_root`]).
pub const PROJECT_LOCAL_DIR: &str = ".deps/python/nvidia/nvshmem";

/// File names of NVSHMEM's host library, most specific first (the wheels ship only the versioned one).
pub const HOST_LIBRARY_NAMES: [&str; 2] = ["libnvshmem_host.so.3", "libnvshmem_host.so"];

/// The CUDA major versions whose NVSHMEM builds [`find`] looks for in system packages and the HPC
/// SDK, preferred first.
pub const CUDA_MAJORS: [u32; 2] = [13, 12];

/// Where the NVIDIA HPC SDK installs by default; one folder `Linux_<arch>/<version>` per release.
pub const HPC_SDK_DEFAULT_DIR: &str = "/opt/nvidia/hpc_sdk";

/// How an [`Install`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From the `NVSHMEM_HOME` environment variable.
    HomeVariable,
    /// From a project-local `.deps` folder.
    ProjectLocal,
    /// From the `.deps` folder of the nvshmem-rs [`checkout`] these crates were built from.
    Checkout,
    /// From Python's site-packages (`nvidia.nvshmem`).
    PythonPackage,
    /// From NVIDIA's `libnvshmem3-cuda-<N>` system package (apt or dnf).
    SystemPackage,
    /// From the NVIDIA HPC SDK's `comm_libs`.
    HpcSdk,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::HomeVariable => "NVSHMEM_HOME",
            Source::ProjectLocal => "project-local install",
            Source::Checkout => "the nvshmem-rs checkout's install",
            Source::PythonPackage => "Python package nvidia.nvshmem",
            Source::SystemPackage => "NVIDIA system package libnvshmem3",
            Source::HpcSdk => "NVIDIA HPC SDK",
        })
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
    /// The nvshmem-rs [`checkout`] whose `x deps` would install NVSHMEM where [`find`] looks, if
    /// these crates were built from one; the fix suggests its `x` only then.
    pub checkout: Option<PathBuf>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "NVSHMEM was not found. Tried:")?;
        for attempt in &self.attempts {
            writeln!(f, "  - {}: {}", attempt.tried, attempt.reason)?;
        }
        write!(f, "Fix, one of: ")?;
        if let Some(checkout) = &self.checkout {
            write!(
                f,
                "run `{}` (installs the nvidia-nvshmem-cu13 3.4.5 wheel into {}, where this \
                 search looks); ",
                deps_command(checkout),
                checkout.join(PROJECT_LOCAL_DIR).display()
            )?;
        }
        write!(
            f,
            "`pip install nvidia-nvshmem-cu13`; install NVIDIA's system packages \
             `libnvshmem3-cuda-13 libnvshmem3-dev-cuda-13` (apt or dnf, from NVIDIA's CUDA \
             repository); load the NVIDIA HPC SDK's environment module (sets \
             {HPC_SDK_VAR}); or set {HOME_VAR} to an NVSHMEM install (the folder holding \
             lib/libnvshmem_host.so.3)."
        )
    }
}

impl std::error::Error for NotFound {}

/// The nvshmem-rs checkout these crates were built from, when a project depends on them by path
/// and the checkout (with its `x` script) is still there: its `.deps` is one of the places [`find`]
/// and the builder's `ptxas` search look, and its `x deps` fills it. `None` for crates from a
/// registry or from git (cargo's copies of those are no checkout one works in).
pub fn checkout() -> Option<PathBuf> {
    checkout_of(Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// The checkout holding this crate's folder `manifest_dir`, if it is one (see [`checkout`]).
fn checkout_of(manifest_dir: &Path) -> Option<PathBuf> {
    let root = manifest_dir.parent()?;
    // Cargo marks each package and git checkout it unpacks with `.cargo-ok`.
    (root.join("x").is_file() && !root.join(".cargo-ok").exists()).then(|| root.to_path_buf())
}

/// The command that installs NVSHMEM and ptxas into `checkout`'s `.deps`, to run from anywhere.
pub fn deps_command(checkout: &Path) -> String {
    format!("{} deps", checkout.join("x").display())
}

/// Where a checkout's `x deps` puts NVSHMEM 3.8, beside the 3.4.5 of [`PROJECT_LOCAL_DIR`].
pub const NEXT_RELEASE_DIR: &str = ".deps/nvshmem-3.8/nvidia/nvshmem";

/// How to get NVSHMEM 3.8, for messages that ask for a newer release: the [`checkout`]'s `x deps`
/// where these crates come from one, else NVIDIA's wheel.
///
/// ```
/// assert!(nvshmem_locate::newer_release_hint().contains("NVSHMEM 3.8"));
/// ```
pub fn newer_release_hint() -> String {
    match checkout() {
        Some(checkout) => format!(
            "`{}` puts NVSHMEM 3.8 in {}",
            deps_command(&checkout),
            checkout.join(NEXT_RELEASE_DIR).display()
        ),
        None => "`pip install --target DIR nvidia-nvshmem-cu13==3.8.0` puts NVSHMEM 3.8 in \
                 DIR/nvidia/nvshmem"
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_is_a_folder_with_the_x_script_that_cargo_did_not_unpack() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().to_path_buf();
        let crate_dir = root.join("locate");
        std::fs::create_dir_all(&crate_dir).unwrap();
        assert_eq!(checkout_of(&crate_dir), None);
        std::fs::write(root.join("x"), "").unwrap();
        assert_eq!(checkout_of(&crate_dir), Some(root.clone()));
        std::fs::write(root.join(".cargo-ok"), "").unwrap();
        assert_eq!(checkout_of(&crate_dir), None);
        // This crate is built from this repository's checkout.
        assert_eq!(
            checkout(),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .map(Path::to_path_buf)
        );
    }
}
