//! Compiles a Rust kernel crate to PTX linked with NVSHMEM's device library, from a `build.rs`.
//!
//! ```no_run
//! // build.rs of the host-side crate
//! let ptx = nvshmem_builder::PtxBuilder::new("kernels")
//!     .arch("sm_90")
//!     .build()
//!     .unwrap_or_else(|error| panic!("{error}"));
//! // Now `env!("KERNELS_PTX")` is the path of the PTX in the host crate.
//! assert_eq!(ptx.env_var(), "KERNELS_PTX");
//! ```
//!
//! and in the host crate: `const PTX: &str = include_str!(env!("KERNELS_PTX"));`.
//!
//! # What `build` does
//! 1. Finds NVSHMEM (`NVSHMEM_HOME`, a project-local install, or Python's `nvidia.nvshmem`: see
//!    `nvshmem-locate`) and its device bitcode for the architecture (`libnvshmem_device_sm_XX.bc` in
//!    NVSHMEM ≥ 3.7, the single sm_90 `libnvshmem_device.bc` before).
//! 2. Runs a nested `cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core` of the
//!    kernel crate with its own target folder (under `OUT_DIR`) and an environment cleaned of the outer
//!    build's variables, with `--features nvshmem-gpu/checks` when checks are on (see [Checks](#checks))
//!    and `nvshmem-gpu/nvshmem-only` when the load/store path is off ([`PtxBuilder::load_store`]).
//!    Its linker is this build script itself ([`run_if_invoked_as_linker`]), which links the crate
//!    with NVSHMEM's bitcode and emits PTX of ISA ≥ 8.3. Cargo is given a link to it named after
//!    the builder's sources, so that the build script's check, doc and test builds do not relink.
//! 3. Forwards the kernel crate's compiler messages as rustc renders them, with their paths from
//!    the calling crate's workspace root as cargo gives the calling crate's own: warnings as
//!    `cargo::warning`, and errors as `cargo::error`, after which the build script ends and cargo
//!    fails the build with those messages alone (`NVSHMEMRS_BUILD_VERBOSE=1` adds the nested
//!    cargo's command line). Emits `cargo::rerun-if-changed` for every source file in the nested
//!    build's dep-info, and for `NVSHMEM_HOME`.
//! 4. Checks the PTX: it has kernels and keeps NVSHMEM's `nvshmemi_device_state_d` and
//!    `nvshmemi_device_lib_version_d`; applies the register limits of
//!    [`PtxBuilder::max_registers`]; where `ptxas` is found, assembles it for the architecture and
//!    fails the build on an error.
//! 5. In a release build, compiles machine code (SASS) for the build machine's GPUs, or for the
//!    PTX's architecture, with `ptxas -O3` and bundles it with `fatbinary` into `<name>.fatbin`
//!    beside the PTX, so that modules load without the driver's JIT (see [`PtxBuilder::sass`]).
//! 6. Exports `cargo::rustc-env=<NAME>_PTX=<path>`, `<NAME>_NVSHMEM_VERSION=<x.y.z>`,
//!    `<NAME>_SASS=<path>` (the fat binary, empty without SASS) and `<NAME>_SASS_ARCHS` (its
//!    architectures, comma-separated); `<NAME>` is the kernel crate's package name, upper-case,
//!    `-` as `_`, followed by `_NVSHMEM_ONLY` when the load/store path is off, so that one crate
//!    can be built both ways. `nvshmem_host::module_image!("<NAME>")` takes them all.
//!
//! Needs the nightly toolchain with `rust-src` and `llvm-tools` (the project's `rust-toolchain.toml`
//! names both).
//!
//! # Checks
//! `nvshmem-gpu`'s `checks` feature makes every device call that takes a PE check it and, when it is
//! out of range, print the call, the PE and the valid range and trap (see `nvshmem-gpu`'s crate
//! documentation). The kernels are always compiled with optimisations, but the checks follow the
//! profile of the crate whose `build.rs` calls the builder: on when it has debug assertions (`cargo
//! build`, `cargo test`; cargo tells the build script with `CARGO_CFG_DEBUG_ASSERTIONS`), off in a
//! `--release` build, where they compile to nothing. The builder asks for them with `--features
//! nvshmem-gpu/checks`, so the kernel crate must depend on `nvshmem-gpu` under that name (it does,
//! for `#[kernel]`). [`PtxBuilder::checks`] overrides the profile, e.g. to keep the checks in the
//! release binaries of a test suite:
//!
//! ```no_run
//! nvshmem_builder::PtxBuilder::new("kernels").checks(true).build().unwrap();
//! ```
//!
//! # NVSHMEM releases
//! Against NVSHMEM 3.7 or later the builder also turns on `nvshmem-gpu/nvshmem-3-7`, which adds the
//! device functions those releases brought (`sync::flush`, float and double atomic add); against an
//! older install, kernels that use them do not compile.

mod arch;
mod diagnostics;
mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod linker;
mod nested_cargo;
mod ptx_file;
mod ptxas;
mod renamed;
mod sass;
mod transport_pin;

pub use error::BuildError;
pub use linker::{NVSHMEM_STATE_SYMBOLS, run_if_invoked_as_linker};
pub use sass::SASS_VAR;
pub use transport_pin::{DEVICE_TRANSPORTS_VAR, DeviceTransports};

use std::path::{Path, PathBuf};
use std::process::Command;

/// The architecture built for when none is given: Hopper (compute capability 9.0).
pub const DEFAULT_ARCH: &str = "sm_90";

/// Builds one kernel crate to PTX. See the [crate documentation](crate).
#[derive(Debug, Clone)]
pub struct PtxBuilder {
    crate_path: PathBuf,
    arch: String,
    checks: Option<bool>,
    load_store: bool,
    register_limits: Vec<(String, u32)>,
    nvshmem_root: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    sass: Option<Vec<String>>,
    device_transports: Option<DeviceTransports>,
}

/// The result of [`PtxBuilder::build`].
#[derive(Debug, Clone)]
pub struct BuiltPtx {
    /// The PTX file (in `OUT_DIR`).
    pub path: PathBuf,
    /// The kernel crate's package name.
    pub package: String,
    /// What this build is called: the package name, followed by `-nvshmem-only` when the
    /// load/store path is off ([`PtxBuilder::load_store`]).
    pub name: String,
    /// The PTX entry points, i.e. the crate's `#[kernel]` functions.
    pub kernels: Vec<String>,
    /// The NVSHMEM release of the device bitcode that was linked.
    pub nvshmem_version: String,
    /// The architecture.
    pub arch: String,
    /// The PTX ISA version the PTX declares, as `major * 10 + minor` (e.g. 83 for 8.3).
    pub ptx_isa: u32,
    /// Whether `ptxas` assembled the PTX (false when no `ptxas` was found).
    pub assembled: bool,
    /// The fat binary of machine code compiled ahead of time, beside the PTX; empty when no
    /// architecture was given SASS (see [`PtxBuilder::sass`]).
    pub sass: PathBuf,
    /// The architectures in [`BuiltPtx::sass`].
    pub sass_archs: Vec<String>,
    /// The device transports the module's NVSHMEM code keeps: [`DeviceTransports::Proxy`] where
    /// it was compiled for the proxy alone, [`DeviceTransports::All`] otherwise.
    pub device_transports: DeviceTransports,
    /// The kernel crate's source files, which the PTX depends on (from the nested build's dep-info).
    pub sources: Vec<PathBuf>,
    /// The device bitcode file that was linked.
    pub device_bitcode: PathBuf,
    /// The kernel crate's compiler warnings, one line each.
    pub warnings: Vec<String>,
}

impl BuiltPtx {
    /// The name of the environment variable that holds [`BuiltPtx::path`] in the calling crate.
    pub fn env_var(&self) -> String {
        format!("{}_PTX", self.prefix())
    }

    /// The prefix of the variables this build exports to the calling crate (`<PREFIX>_PTX`,
    /// `<PREFIX>_SASS`, …), which `nvshmem_host::module_image!` takes.
    pub fn prefix(&self) -> String {
        self.name.to_uppercase().replace('-', "_")
    }
}

impl PtxBuilder {
    /// A builder for the kernel crate at `crate_path` (relative paths start at the calling crate's
    /// folder, `CARGO_MANIFEST_DIR`).
    ///
    /// ```no_run
    /// let builder = nvshmem_builder::PtxBuilder::new("examples/ring/kernels");
    /// ```
    pub fn new(crate_path: impl AsRef<Path>) -> PtxBuilder {
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let crate_path = match manifest_dir {
            Some(dir) if crate_path.as_ref().is_relative() => dir.join(crate_path),
            _ => crate_path.as_ref().to_path_buf(),
        };
        PtxBuilder {
            crate_path,
            arch: DEFAULT_ARCH.to_string(),
            checks: None,
            load_store: true,
            register_limits: Vec::new(),
            nvshmem_root: None,
            out_dir: None,
            sass: None,
            device_transports: None,
        }
    }

    /// The GPU architecture, `sm_XY` (default [`DEFAULT_ARCH`]). The NVSHMEM installation must have
    /// device bitcode for it: NVSHMEM 3.4–3.6 have sm_90 only, 3.7 adds sm_75, sm_80 and sm_89, 3.8
    /// adds sm_100. The PTX ISA version and the target features follow from the architecture and
    /// the bitcode; they are not chosen here.
    ///
    /// ```no_run
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").arch("sm_100");
    /// ```
    pub fn arch(mut self, arch: &str) -> PtxBuilder {
        self.arch = arch.to_string();
        self
    }

    /// Whether the kernels check PE arguments on the device (`nvshmem-gpu`'s `checks` feature); by
    /// default, when the calling crate is built with debug assertions. See [Checks](crate#checks).
    ///
    /// ```no_run
    /// // The GPU suite runs release binaries, with the checks kept on.
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").checks(true);
    /// ```
    pub fn checks(mut self, on: bool) -> PtxBuilder {
        self.checks = Some(on);
        self
    }

    /// Whether `nvshmem-gpu` moves data between mapped peers with the threads' own loads and stores
    /// (its load/store path, the default) or leaves every transfer and collective to NVSHMEM
    /// (`false`: its `nvshmem-only` feature). Results are the same; building a crate both ways lets
    /// tests and benchmarks compare the paths. With `false` the PTX's name and environment variable
    /// end in `-nvshmem-only` and `_NVSHMEM_ONLY_PTX`, so both builds can coexist.
    ///
    /// ```no_run
    /// // env!("KERNELS_NVSHMEM_ONLY_PTX") in the calling crate.
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").load_store(false);
    /// ```
    pub fn load_store(mut self, on: bool) -> PtxBuilder {
        self.load_store = on;
        self
    }

    /// Caps the registers per thread of `kernel` at `registers` (PTX `.maxnreg`, what CUDA C++
    /// gets from `__launch_bounds__` or `-maxrregcount`): fewer registers let more blocks share a
    /// multiprocessor, at the price of spills if the kernel needs more. Worth it for a persistent
    /// kernel whose cooperative grid is sized by occupancy. `registers` is 16 to 255; the kernel
    /// must be one of the crate's `#[kernel]` functions, else [`PtxBuilder::build`] fails.
    ///
    /// ```no_run
    /// // 80 registers: 6 blocks of 128 threads per multiprocessor instead of 5 at 88.
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").max_registers("jacobi_persistent", 80);
    /// ```
    pub fn max_registers(mut self, kernel: &str, registers: u32) -> PtxBuilder {
        self.register_limits.push((kernel.to_string(), registers));
        self
    }

    /// The architectures to compile machine code (SASS) for ahead of time, bundled into a fat
    /// binary beside the PTX, so that the module loads on those GPUs without the driver's JIT
    /// compile; each must be the PTX's architecture ([`PtxBuilder::arch`]) or newer. By default a
    /// release build compiles it for the build machine's GPUs (as `nvidia-smi` reports them), or for
    /// the PTX's architecture on a machine without one, and other builds keep PTX only, which builds
    /// faster. The variable `NVSHMEMRS_SASS` ([`SASS_VAR`]: `sm_90,sm_100`, or `none`) overrides
    /// both, without editing `build.rs`. An empty list means PTX only.
    ///
    /// ```no_run
    /// // Hopper and Blackwell machine code from Hopper PTX; other GPUs compile the PTX at load.
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").sass(&["sm_90", "sm_100"]);
    /// ```
    pub fn sass(mut self, archs: &[&str]) -> PtxBuilder {
        self.sass = Some(archs.iter().map(|arch| arch.to_string()).collect());
        self
    }

    /// Which of NVSHMEM's device transports the kernels' NVSHMEM code keeps (default
    /// [`DeviceTransports::Proxy`]; the variable `NVSHMEMRS_DEVICE_TRANSPORTS`,
    /// [`DEVICE_TRANSPORTS_VAR`], set to `proxy` or `all`, overrides it without editing `build.rs`).
    ///
    /// From NVSHMEM 3.8 on, every transfer function carries the code of IBGDA and GDAKI, the
    /// transports where the GPU drives the network card, beside the proxy's, and chooses at run
    /// time. That code makes a module several megabytes and its machine code minutes to compile.
    /// With `Proxy` the builder compiles NVSHMEM's code for the proxy alone, which serves every
    /// job that does not enable IBGDA or GDAKI (one machine, NVLink, and networks through the
    /// host's transports); `nvshmem-host` refuses to load such a module where NVSHMEM selected
    /// another transport, and says to build with `all`. Only releases whose device code was
    /// checked are pinned (3.8.0); with others, both settings give the same module.
    ///
    /// ```no_run
    /// // For jobs that set NVSHMEM_IB_ENABLE_IBGDA=1.
    /// use nvshmem_builder::{DeviceTransports, PtxBuilder};
    /// let builder = PtxBuilder::new("kernels").device_transports(DeviceTransports::All);
    /// ```
    pub fn device_transports(mut self, transports: DeviceTransports) -> PtxBuilder {
        self.device_transports = Some(transports);
        self
    }

    /// The NVSHMEM installation to link, the folder holding `lib/` and `include/` (default: the one
    /// `nvshmem-locate` finds, starting with `NVSHMEM_HOME`). For tools that build one crate against
    /// several releases; a `build.rs` leaves it to `NVSHMEM_HOME`, which the host library's loader
    /// also follows.
    ///
    /// ```no_run
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").nvshmem(".deps/nvshmem-3.8/nvidia/nvshmem");
    /// ```
    pub fn nvshmem(mut self, root: impl Into<PathBuf>) -> PtxBuilder {
        self.nvshmem_root = Some(root.into());
        self
    }

    /// The folder the PTX is written to (default: `OUT_DIR`, which cargo gives build scripts, else a
    /// new private folder under the system's temporary folder, which is kept). When
    /// it is cargo's layout, `<target>/<profile>/build/<name>/out`, the nested build shares the
    /// profile's kernel folder with the build scripts (see [`PtxBuilder::build`]).
    ///
    /// ```no_run
    /// let builder = nvshmem_builder::PtxBuilder::new("kernels").out_dir("target/debug/build/tool/out");
    /// ```
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> PtxBuilder {
        self.out_dir = Some(dir.into());
        self
    }

    /// Builds the PTX and prints the `cargo::` directives (`rerun-if-changed`, `rustc-env`,
    /// warnings); see the [crate documentation](crate).
    ///
    /// When the kernel crate does not build, prints rustc's messages as `cargo::error` lines (their
    /// paths from the workspace root, as cargo gives the calling crate's) and ends the build script,
    /// so that cargo fails the build with those messages alone, without this script's other output
    /// or a backtrace; other errors are returned.
    ///
    /// When this process is the nested build's linker, performs the link and exits instead.
    pub fn build(self) -> Result<BuiltPtx, BuildError> {
        // Before printing anything: rustc reports what its linker prints as a warning.
        run_if_invoked_as_linker();
        for variable in [
            nvshmem_locate::HOME_VAR,
            nvshmem_locate::HPC_SDK_VAR,
            "PTXAS",
            SASS_VAR,
            DEVICE_TRANSPORTS_VAR,
        ]
        .into_iter()
        .chain(renamed::RENAMED.map(|(old, _)| old))
        {
            println!("cargo::rerun-if-env-changed={variable}");
        }
        let built = match self.compile() {
            Err(BuildError::CargoFailed {
                package,
                output,
                command,
            }) => exit_with_compile_errors(package, &output, command),
            built => built?,
        };
        for line in &built.warnings {
            println!("cargo::warning={}: {line}", built.package);
        }
        if !built.assembled {
            println!(
                "cargo::warning=ptxas was not found, so {} was not assembled as a check (looked \
                 in $PTXAS, $PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin and \
                 .deps/python/nvidia/cu13/bin at this project's root and in the nvshmem-rs \
                 checkout, never above the project nor in folders others can write); install \
                 CUDA or the nvidia-cuda-nvcc wheel, or set PTXAS",
                built.path.display()
            );
        }
        for source in &built.sources {
            println!("cargo::rerun-if-changed={}", source.display());
        }
        println!("cargo::rerun-if-changed={}", built.device_bitcode.display());
        let prefix = built.prefix();
        println!("cargo::rustc-env={prefix}_PTX={}", built.path.display());
        println!(
            "cargo::rustc-env={prefix}_NVSHMEM_VERSION={}",
            built.nvshmem_version
        );
        println!("cargo::rustc-env={prefix}_SASS={}", built.sass.display());
        println!(
            "cargo::rustc-env={prefix}_SASS_ARCHS={}",
            built.sass_archs.join(",")
        );
        Ok(built)
    }

    /// What [`PtxBuilder::build`] does, without printing anything: for tools that are not build
    /// scripts. The caller reports [`BuiltPtx::warnings`] and an unassembled PTX itself.
    ///
    /// When this process is the nested build's linker, performs the link and exits instead.
    pub fn compile(self) -> Result<BuiltPtx, BuildError> {
        let arch = self.arch.clone();
        let mut built = self.compile_for(&[&arch])?;
        Ok(built.remove(0))
    }

    /// [`PtxBuilder::compile`] for each of `archs` (instead of [`PtxBuilder::arch`]'s), compiling
    /// the Rust code once for the architectures whose rustc bitcode differs only in the functions'
    /// `target-cpu` attribute (those before sm_100; see `arch::same_rust_code`): the link step
    /// rewrites that attribute and links, optimizes and assembles each architecture in parallel.
    /// Each PTX is the same as [`PtxBuilder::compile`] gives for its architecture alone. One
    /// [`BuiltPtx`] per architecture, in order; with more than one, each PTX is
    /// `<name>.<arch>.ptx` in the output folder.
    ///
    /// ```no_run
    /// let built = nvshmem_builder::PtxBuilder::new("kernels").compile_for(&["sm_80", "sm_90"]).unwrap();
    /// assert_eq!(built[1].arch, "sm_90");
    /// ```
    pub fn compile_for(self, archs: &[&str]) -> Result<Vec<BuiltPtx>, BuildError> {
        run_if_invoked_as_linker();
        renamed::refuse_old_names(|name| std::env::var_os(name).is_some())?;
        if archs.is_empty() {
            return Err(BuildError::NoArchitecture);
        }
        let mut built = Vec::new();
        for group in arch::same_rust_code(archs) {
            built.extend(self.clone().compile_group(&group, archs.len() > 1)?);
        }
        built.sort_by_key(|ptx| archs.iter().position(|arch| *arch == ptx.arch));
        Ok(built)
    }

    /// [`PtxBuilder::compile_for`] for architectures whose Rust code is compiled once; with
    /// `name_by_arch`, each PTX file's name says its architecture.
    fn compile_group(
        self,
        archs: &[&str],
        name_by_arch: bool,
    ) -> Result<Vec<BuiltPtx>, BuildError> {
        let manifest = self.crate_path.join("Cargo.toml");
        if !manifest.is_file() {
            return Err(BuildError::NoKernelCrate(self.crate_path));
        }
        // `arch::same_rust_code` makes no empty group.
        let first_arch = &archs[0];
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let caller_dir = manifest_dir
            .clone()
            .unwrap_or_else(|| self.crate_path.clone());
        let install = match &self.nvshmem_root {
            Some(root) => nvshmem_locate::Install::at(root, nvshmem_locate::Source::HomeVariable)
                .map_err(|attempt| {
                BuildError::NvshmemNotFound(nvshmem_locate::NotFound {
                    attempts: vec![attempt],
                    checkout: nvshmem_locate::checkout(),
                })
            })?,
            None => nvshmem_locate::find(&[&caller_dir, &self.crate_path])?,
        };
        let version = install.version()?;
        let targets = archs
            .iter()
            .map(|arch| {
                Ok(linker::LinkTarget {
                    arch: arch.to_string(),
                    ptx_isa: arch::ptx_isa_for(arch::compute_capability(arch)?),
                    device_bitcode: arch::device_bitcode(&install, version, arch)?,
                })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        let llvm_bin = llvm_tools_dir()?;
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from));
        // Outside a build script, with no folder given: a new private one, kept for the PTX.
        let out_dir = match out_dir {
            Some(dir) => dir,
            None => tempfile::Builder::new()
                .prefix("nvshmem-builder-")
                .tempdir()
                .map_err(|error| BuildError::Io {
                    path: std::env::temp_dir(),
                    error,
                })?
                .keep(),
        };
        let package = package_name(&manifest)?;
        let name = if self.load_store {
            package.clone()
        } else {
            format!("{package}-nvshmem-only")
        };
        let transports = DeviceTransports::resolve(self.device_transports)?;
        let mut linker_env = vec![
            (linker::LINKER_MODE_VAR, "1".to_string()),
            (linker::LLVM_BIN_VAR, llvm_bin.display().to_string()),
            (
                linker::DEVICE_TRANSPORTS_VAR,
                transports.as_str().to_string(),
            ),
        ];
        linker_env.extend(linker::LinkTarget::environment(&targets)?);
        let checks = self
            .checks
            .unwrap_or_else(|| std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some());
        let features: Vec<&str> = [
            checks.then_some(nested_cargo::CHECKS_FEATURE),
            (!self.load_store).then_some(nested_cargo::NVSHMEM_ONLY_FEATURE),
            (version >= nested_cargo::NVSHMEM_3_7).then_some(nested_cargo::NVSHMEM_3_7_FEATURE),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut warnings = Vec::new();
        let kernel_dir = kernel_target_dir(
            &out_dir,
            self.load_store,
            &version.to_string(),
            &archs.join("+"),
            transports,
        );
        let kernels = nested_cargo::KernelCrate {
            manifest: &manifest,
            package: &package,
        };
        let nested = nested_cargo::build(
            kernels,
            manifest_dir.as_deref(),
            &kernel_dir,
            first_arch,
            &features,
            &linker_env,
            |line| warnings.push(line.to_string()),
        )?;
        std::fs::create_dir_all(&out_dir).map_err(|error| BuildError::Io {
            path: out_dir.clone(),
            error,
        })?;
        let linked = std::fs::read_to_string(&nested.ptx).map_err(|error| BuildError::Io {
            path: nested.ptx.clone(),
            error,
        })?;
        let modules = ptx_file::split_modules(&linked);
        let ptxas = match ptxas::find(&caller_dir) {
            Ok(found) => Some(found),
            Err(skipped) => {
                warnings.extend(skipped.into_iter().map(|line| format!("ptxas {line}")));
                None
            }
        };
        let profile = sass::Profile::of_build_script();
        let sass_archs = targets
            .iter()
            .map(|target| {
                let archs = sass::archs(
                    &target.arch,
                    self.sass.as_deref(),
                    profile,
                    sass::build_machine_gpus,
                )?;
                // Machine code needs ptxas, whose absence the build reports already.
                Ok(if ptxas.is_some() { archs } else { Vec::new() })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        // Each architecture's PTX is checked and assembled on its own thread: ptxas takes the
        // longest, and one process uses one core.
        let built: Vec<Result<BuiltPtx, BuildError>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = targets
                .iter()
                .zip(&sass_archs)
                .map(|(target, sass_archs)| {
                    let module = modules
                        .iter()
                        .find(|(arch, _)| *arch == target.arch)
                        .map(|(_, module)| *module);
                    let stem = if name_by_arch {
                        format!("{name}.{}", target.arch)
                    } else {
                        name.clone()
                    };
                    let path = out_dir.join(format!("{stem}.ptx"));
                    let sass = out_dir.join(format!("{stem}.fatbin"));
                    let (ptxas, kernel_dir, register_limits) =
                        (&ptxas, &kernel_dir, &self.register_limits);
                    let (package, name, sources, nested_ptx) =
                        (&package, &name, &nested.sources, &nested.ptx);
                    let warnings = warnings.clone();
                    scope.spawn(move || {
                        let module = module.ok_or_else(|| BuildError::InvalidPtx {
                            ptx: nested_ptx.clone(),
                            problem: format!(
                                "it has no module for {}: it was linked for other architectures; \
                                 delete {} to link again",
                                target.arch,
                                kernel_dir.display()
                            ),
                        })?;
                        let (text, facts) =
                            ptx_file::finish_ptx(nested_ptx, module, &path, register_limits)?;
                        let ptx_file::PtxFacts {
                            kernels,
                            nvshmem_version,
                            ptx_isa,
                            device_transports,
                        } = facts;
                        // Compiling SASS for the PTX's own architecture checks it as well.
                        if let Some(ptxas) = ptxas
                            && !sass_archs.contains(&target.arch)
                        {
                            ptxas::check_once(ptxas, &path, &text, &target.arch, kernel_dir)?;
                        }
                        let ptxas = ptxas.as_deref();
                        sass::build(ptxas, &path, &text, &kernels, sass_archs, kernel_dir, &sass)?;
                        Ok(BuiltPtx {
                            path,
                            package: package.clone(),
                            name: name.clone(),
                            kernels,
                            nvshmem_version,
                            arch: target.arch.clone(),
                            ptx_isa,
                            assembled: ptxas.is_some(),
                            sass,
                            sass_archs: sass_archs.clone(),
                            device_transports,
                            sources: sources.clone(),
                            device_bitcode: target.device_bitcode.clone(),
                            warnings,
                        })
                    })
                })
                .collect();
            jobs.into_iter()
                .map(|job| job.join().expect("a PTX check panicked"))
                .collect()
        });
        built.into_iter().collect()
    }
}

/// Ends the build script on a kernel crate that did not build: rustc's messages (`output`), then
/// what to do, one `cargo::error` per line, which cargo prints as `error: <package>@<version>:
/// <line>`. It exits successfully: cargo fails the build for the errors it was given and shows
/// nothing else, where a failed exit would make it repeat the script's whole output.
fn exit_with_compile_errors(package: String, output: &str, command: Option<String>) -> ! {
    for line in output.lines() {
        println!("cargo::error={line}");
    }
    let summary = BuildError::CargoFailed {
        package,
        output: String::new(),
        command,
    };
    println!("cargo::error={summary}");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::process::exit(0)
}

/// The nested build's target folder. Kernel crates built by the build scripts of one outer profile
/// share it (`<target>/<profile>/nvshmem-kernels/<release>-<arch>`, under the folder three levels
/// above cargo's `OUT_DIR`), so that `core`, compiled from source for the GPU, is built once rather
/// than once per kernel crate. Each NVSHMEM release and architecture gets its own: cargo does not
/// track the link step's environment (which names the bitcode), so a shared folder could hand back PTX linked
/// with another release. A crate built with the load/store path off gets its own folder too: both
/// builds of one crate would otherwise write the same output file; so does a build that keeps all
/// of NVSHMEM's device transports.
fn kernel_target_dir(
    out_dir: &Path,
    load_store: bool,
    release: &str,
    arch: &str,
    transports: DeviceTransports,
) -> PathBuf {
    let transports = match transports {
        DeviceTransports::Proxy => "",
        DeviceTransports::All => "-all-transports",
    };
    let name = if load_store {
        format!("nvshmem-kernels/{release}-{arch}{transports}")
    } else {
        format!("nvshmem-kernels-nvshmem-only/{release}-{arch}{transports}")
    };
    // OUT_DIR is `<target>/<profile>/build/<package>-<hash>/out` when cargo runs the build script.
    let profile_dir = out_dir.ancestors().nth(3).filter(|_| {
        out_dir
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            == Some("build".as_ref())
    });
    match profile_dir {
        Some(dir) => dir.join(name),
        None => out_dir.join(name),
    }
}

/// The `name` of the `[package]` in `manifest`.
fn package_name(manifest: &Path) -> Result<String, BuildError> {
    let text = std::fs::read_to_string(manifest).map_err(|error| BuildError::Io {
        path: manifest.to_path_buf(),
        error,
    })?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if let (true, Some(value)) = (in_package, line.strip_prefix("name"))
            && let Some(name) = value.trim_start().strip_prefix('=')
        {
            return Ok(name.trim().trim_matches('"').to_string());
        }
    }
    Err(BuildError::NoKernelCrate(manifest.to_path_buf()))
}

/// The folder of the toolchain's LLVM tools (`rustup component add llvm-tools`).
fn llvm_tools_dir() -> Result<PathBuf, BuildError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|error| BuildError::Spawn {
            program: rustc.to_string_lossy().into_owned(),
            error,
        })?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let host = std::env::var("HOST").unwrap_or_else(|_| "x86_64-unknown-linux-gnu".to_string());
    let bin = sysroot.join("lib/rustlib").join(host).join("bin");
    for tool in ["llvm-link", "opt", "llc", "llvm-ar", "llvm-dis"] {
        if !bin.join(tool).is_file() {
            return Err(BuildError::ToolMissing {
                tool: tool.to_string(),
                looked_in: bin,
                fix: "install the toolchain's LLVM tools with `rustup component add llvm-tools` \
                      (this project's rust-toolchain.toml lists the component)",
            });
        }
    }
    Ok(bin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn building_for_no_architecture_is_an_error() {
        let error = PtxBuilder::new("kernels").compile_for(&[]).unwrap_err();
        assert!(matches!(error, BuildError::NoArchitecture), "{error:?}");
        assert!(error.to_string().contains("e.g. `sm_90`"), "{error}");
    }

    #[test]
    fn kernel_crates_of_one_profile_share_a_target_folder() {
        let out = |package: &str| PathBuf::from(format!("/t/debug/build/{package}-0123/out"));
        let dir = |out: &Path, load_store, release, arch| {
            kernel_target_dir(out, load_store, release, arch, DeviceTransports::Proxy)
        };
        assert_eq!(
            dir(&out("ring"), true, "3.4.5", "sm_90"),
            dir(&out("jacobi"), true, "3.4.5", "sm_90")
        );
        assert_eq!(
            dir(&out("ring"), true, "3.4.5", "sm_90"),
            PathBuf::from("/t/debug/nvshmem-kernels/3.4.5-sm_90")
        );
        assert_eq!(
            dir(&out("ring"), false, "3.4.5", "sm_90"),
            PathBuf::from("/t/debug/nvshmem-kernels-nvshmem-only/3.4.5-sm_90")
        );
        // Another release or architecture links other bitcode: never the same folder.
        assert_ne!(
            dir(&out("ring"), true, "3.4.5", "sm_90"),
            dir(&out("ring"), true, "3.8.0", "sm_90")
        );
        assert_ne!(
            dir(&out("ring"), true, "3.8.0", "sm_80"),
            dir(&out("ring"), true, "3.8.0", "sm_90")
        );
        // Keeping every transport links other code.
        assert_eq!(
            kernel_target_dir(&out("ring"), true, "3.8.0", "sm_90", DeviceTransports::All),
            PathBuf::from("/t/debug/nvshmem-kernels/3.8.0-sm_90-all-transports")
        );
        // Not laid out by cargo: stay inside the given folder.
        assert_eq!(
            dir(Path::new("/tmp/x/out"), true, "3.8.0", "sm_100"),
            PathBuf::from("/tmp/x/out/nvshmem-kernels/3.8.0-sm_100")
        );
    }

    #[test]
    fn package_name_is_read_from_the_package_section() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[workspace]\n\n[package]\nname = \"ring-kernels\"\n",
        )
        .unwrap();
        assert_eq!(package_name(&manifest).unwrap(), "ring-kernels");
    }
}
