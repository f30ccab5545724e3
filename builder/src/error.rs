//! The builder's error type.

use std::fmt;
use std::path::PathBuf;

/// Why a kernel crate could not be turned into PTX. Each message says what to do.
#[derive(Debug)]
pub enum BuildError {
    /// No NVSHMEM installation was found (the message lists every place tried).
    NvshmemNotFound(nvshmem_locate::NotFound),
    /// The NVSHMEM installation has no device bitcode for the requested architecture.
    ArchitectureNotAvailable {
        /// The architecture asked for, e.g. `sm_80`.
        requested: String,
        /// The installation's root.
        nvshmem_root: PathBuf,
        /// The installation's release.
        version: nvshmem_locate::Version,
        /// The architectures it has bitcode for.
        available: Vec<String>,
    },
    /// The installation has no device bitcode at all: a runtime-only install (NVIDIA's
    /// `libnvshmem3-cuda-<N>` package without its `-dev` package).
    NoDeviceBitcode {
        /// The library folder searched.
        lib_dir: PathBuf,
    },
    /// The architecture name is not of the form `sm_XY`.
    InvalidArchitecture(String),
    /// [`crate::PtxBuilder::compile_for`] was given no architecture.
    NoArchitecture,
    /// The installation's version could not be read.
    NvshmemVersion(nvshmem_locate::VersionError),
    /// A rustup component or LLVM tool is missing.
    ToolMissing {
        /// The tool, e.g. `llvm-link`.
        tool: String,
        /// Where it was looked for.
        looked_in: PathBuf,
        /// How to get it.
        fix: &'static str,
    },
    /// The kernel crate has no `Cargo.toml`.
    NoKernelCrate(PathBuf),
    /// A program could not be started.
    Spawn {
        /// The program.
        program: String,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// The nested `cargo build` of the kernel crate failed: most often, the crate does not compile.
    CargoFailed {
        /// The kernel crate's package name.
        package: String,
        /// rustc's errors as it renders them for a terminal (colour codes included), their paths
        /// relative to the calling crate's workspace root, then what cargo said beyond its progress.
        output: String,
        /// The nested cargo's command line, when `NVSHMEMRS_BUILD_VERBOSE` asks for it.
        command: Option<String>,
    },
    /// The build succeeded but produced no `.ptx` file.
    NoPtxProduced {
        /// The kernel crate's package name.
        package: String,
    },
    /// The PTX is missing something NVSHMEM needs.
    InvalidPtx {
        /// The PTX file.
        ptx: PathBuf,
        /// What is missing.
        problem: String,
    },
    /// A [`crate::PtxBuilder::max_registers`] limit could not be applied.
    RegisterLimit {
        /// The kernel it names.
        kernel: String,
        /// The limit asked for.
        registers: u32,
        /// Why it could not be applied.
        problem: String,
        /// The kernels the PTX has.
        kernels: Vec<String>,
    },
    /// `ptxas` rejected the PTX.
    PtxasRejected {
        /// The PTX file.
        ptx: PathBuf,
        /// The architecture it was assembled for.
        arch: String,
        /// What `ptxas` printed.
        output: String,
    },
    /// SASS was asked for an architecture older than the PTX's, which it cannot be compiled for.
    SassBelowPtx {
        /// The architecture asked for.
        arch: String,
        /// The PTX's architecture.
        ptx_arch: String,
    },
    /// `NVSHMEMRS_SASS` is not a list of architectures.
    SassVariable {
        /// Its value.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// `NVSHMEMRS_DEVICE_TRANSPORTS` is neither `proxy` nor `all` (its value).
    DeviceTransports(String),
    /// A variable is set under a name the builder no longer reads.
    RenamedVariable {
        /// The name that is set.
        old: &'static str,
        /// The name to set instead.
        new: &'static str,
    },
    /// `nvlink` could not link relocatable machine code.
    NvlinkFailed {
        /// The object it was given.
        object: PathBuf,
        /// What `nvlink` printed.
        output: String,
    },
    /// The machine code compiled for an architecture lacks kernels that the PTX defines.
    SassMissingKernels {
        /// The PTX it was compiled from.
        ptx: PathBuf,
        /// The architecture, e.g. `sm_90`.
        arch: String,
        /// The kernels it lacks.
        kernels: Vec<String>,
    },
    /// `fatbinary` could not bundle the machine code.
    FatbinaryFailed {
        /// The fat binary it was to write.
        out: PathBuf,
        /// What `fatbinary` printed.
        output: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NvshmemNotFound(not_found) => write!(f, "{not_found}"),
            BuildError::ArchitectureNotAvailable {
                requested,
                nvshmem_root,
                version,
                available,
            } => write!(
                f,
                "NVSHMEM {version} at {} has no device bitcode for {requested}; it has: {}. {}: \
                 point NVSHMEM_HOME at such an install ({}), or choose one of the architectures it \
                 has with `.arch(..)`",
                nvshmem_root.display(),
                available.join(", "),
                crate::arch::releases_with(requested),
                nvshmem_locate::newer_release_hint()
            ),
            BuildError::NoDeviceBitcode { lib_dir } => write!(
                f,
                "NVSHMEM's library folder {} has no device bitcode (libnvshmem_device*.bc): it is \
                 a runtime-only install. Install the development files too (NVIDIA's \
                 libnvshmem3-dev-cuda-13 package beside libnvshmem3-cuda-13), or point \
                 NVSHMEM_HOME at a full install such as the pip wheel nvidia-nvshmem-cu13",
                lib_dir.display()
            ),
            BuildError::InvalidArchitecture(arch) => write!(
                f,
                "`{arch}` is not a GPU architecture name; write it as `sm_` and the compute \
                 capability without the dot, e.g. `sm_90` for Hopper"
            ),
            BuildError::NoArchitecture => write!(
                f,
                "no GPU architecture was given to build for; name at least one, e.g. `sm_90`"
            ),
            BuildError::NvshmemVersion(error) => write!(f, "{error}"),
            BuildError::SassBelowPtx { arch, ptx_arch } => write!(
                f,
                "machine code (SASS) was asked for {arch}, but the PTX is for {ptx_arch}, which \
                 only GPUs of that architecture or newer can run; drop {arch} from the list \
                 (`.sass(..)` or {var}) or build the PTX for it with `.arch(\"{arch}\")`",
                var = crate::sass::SASS_VAR
            ),
            BuildError::SassVariable { value, problem } => write!(
                f,
                "{var}={value}: {problem}; set it to architectures separated by commas, e.g. \
                 `sm_90,sm_100`, or to `none` for PTX only",
                var = crate::sass::SASS_VAR
            ),
            BuildError::DeviceTransports(value) => write!(
                f,
                "{var}={value}: set it to `proxy` (NVSHMEM's proxy transport only: small modules \
                 that build fast) or `all` (also IBGDA and GDAKI, for jobs that enable them)",
                var = crate::transport_pin::DEVICE_TRANSPORTS_VAR
            ),
            BuildError::RenamedVariable { old, new } => write!(
                f,
                "{old} is no longer read: every variable of nvshmem-rs begins with NVSHMEMRS_; \
                 set {new} (same values) instead, and unset {old}"
            ),
            BuildError::NvlinkFailed { object, output } => write!(
                f,
                "nvlink could not link {}:\n{output}\nbuild without machine code with {var}=none \
                 to get going (the driver then compiles the PTX at the first load)",
                object.display(),
                var = crate::sass::SASS_VAR
            ),
            BuildError::SassMissingKernels { ptx, arch, kernels } => write!(
                f,
                "the {arch} machine code compiled from {} lacks the kernels {}: ptxas or nvlink \
                 dropped them; build without machine code with {var}=none to get going (the \
                 driver then compiles the PTX at the first load), and report the CUDA version",
                ptx.display(),
                kernels.join(", "),
                var = crate::sass::SASS_VAR
            ),
            BuildError::FatbinaryFailed { out, output } => write!(
                f,
                "fatbinary could not write {}:\n{output}\nbuild without machine code with \
                 {var}=none to get going (the driver then compiles the PTX at the first load)",
                out.display(),
                var = crate::sass::SASS_VAR
            ),
            BuildError::ToolMissing {
                tool,
                looked_in,
                fix,
            } => {
                write!(
                    f,
                    "`{tool}` was not found in {}: {fix}",
                    looked_in.display()
                )
            }
            BuildError::NoKernelCrate(path) => write!(
                f,
                "no kernel crate at {}: the path given to PtxBuilder::new must be a folder with \
                 a Cargo.toml (relative paths are taken from the calling crate's folder)",
                path.display()
            ),
            BuildError::Spawn { program, error } => write!(f, "could not run `{program}`: {error}"),
            BuildError::CargoFailed {
                package,
                output,
                command,
            } => {
                let output = crate::diagnostics::without_colours(output);
                write!(f, "{output}the kernel crate `{package}` did not build")?;
                match command {
                    Some(command) => write!(f, "; the nested build was: {command}"),
                    None => write!(
                        f,
                        "; fix the errors above ({var}=1 shows the nested cargo's command)",
                        var = crate::nested_cargo::VERBOSE_VAR
                    ),
                }
            }
            BuildError::NoPtxProduced { package } => write!(
                f,
                "building `{package}` produced no .ptx file: a kernel crate needs \
                 `crate-type = [\"cdylib\"]` in its [lib] section, and a build script that does \
                 work before `PtxBuilder::build` must call `nvshmem_builder::run_if_invoked_as_linker()` \
                 first (the builder runs the build script again as the kernels' linker)"
            ),
            BuildError::InvalidPtx { ptx, problem } => write!(f, "{}: {problem}", ptx.display()),
            BuildError::RegisterLimit {
                kernel,
                registers,
                problem,
                kernels,
            } => write!(
                f,
                "max_registers(\"{kernel}\", {registers}): {problem}; fix the call in build.rs \
                 (the kernels are: {})",
                kernels.join(", ")
            ),
            BuildError::PtxasRejected { ptx, arch, output } => {
                write!(
                    f,
                    "ptxas -arch={arch} rejected {}:\n{output}\n",
                    ptx.display()
                )?;
                if output.contains("Unresolved extern function") {
                    write!(
                        f,
                        "A kernel calls a function that neither its crate nor NVSHMEM's device \
                         library defines: an `extern \"C\"` declaration with a misspelt name, or a \
                         function of a newer NVSHMEM than the one linked; fix the name or the \
                         NVSHMEM version"
                    )
                } else {
                    write!(
                        f,
                        "Kernels that compile should assemble: this is a bug in nvshmem-builder or \
                         LLVM's PTX backend; please report it with the file"
                    )
                }
            }
            BuildError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::NvshmemNotFound(error) => Some(error),
            BuildError::NvshmemVersion(error) => Some(error),
            BuildError::Spawn { error, .. } | BuildError::Io { error, .. } => Some(error),
            // The others carry text (tools' output, paths, names), no error of their own.
            _ => None,
        }
    }
}

impl From<nvshmem_locate::NotFound> for BuildError {
    fn from(not_found: nvshmem_locate::NotFound) -> Self {
        BuildError::NvshmemNotFound(not_found)
    }
}

impl From<nvshmem_locate::VersionError> for BuildError {
    fn from(error: nvshmem_locate::VersionError) -> Self {
        BuildError::NvshmemVersion(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn an_operating_system_error_is_the_source() {
        let error = BuildError::Io {
            path: PathBuf::from("k.ptx"),
            error: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(error.source().unwrap().to_string(), "gone");
        assert!(BuildError::NoArchitecture.source().is_none());
    }

    fn rejected(output: &str) -> String {
        BuildError::PtxasRejected {
            ptx: PathBuf::from("k.ptx"),
            arch: "sm_90".into(),
            output: output.into(),
        }
        .to_string()
    }

    #[test]
    fn an_unresolved_function_is_blamed_on_the_kernel_not_the_builder() {
        let message = rejected("ptxas fatal   : Unresolved extern function 'nvshmem_no_such'");
        assert!(message.contains("misspelt name"), "{message}");
        assert!(!message.contains("bug in nvshmem-builder"), "{message}");
        let message = rejected("ptxas error   : something else");
        assert!(message.contains("bug in nvshmem-builder"), "{message}");
    }
}
