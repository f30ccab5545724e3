//! The link step: rustc's bitcode objects + NVSHMEM's device bitcode → one PTX module.
//!
//! rustc's `nvptx64-nvidia-cuda` target hands its LLVM bitcode to a linker of the `llvm-bitcode-linker`
//! flavour, whose rustup component is not available everywhere. The builder makes the running build
//! script that linker: it sets the nested cargo's linker to `std::env::current_exe()` and the variables
//! below, and [`crate::PtxBuilder::build`] starts by calling [`run_if_invoked_as_linker`], which performs
//! the link and exits when those variables are present.
//!
//! Steps: unpack the rlibs (`llvm-ar x`), `llvm-link` all objects, `llvm-link --only-needed` NVSHMEM's
//! device bitcode, check its architecture and read its version from `nvshmemi_device_lib_version_d`,
//! `opt` with `internalize` (keeping the kernels and NVSHMEM's two state symbols, which
//! `nvshmemx_cumodule_init` looks up by name) and `default<O3>`, then `llc` to PTX.
//!
//! One link may serve several architectures ([`crate::PtxBuilder::compile_for`]): rustc compiled the
//! Rust code for the first, and for the architectures the builder groups so its bitcode differs
//! only in the functions' `target-cpu` attribute, so for each other architecture that attribute is
//! rewritten and the steps from the device bitcode on run again, in parallel; the PTX is the same
//! as a build for that architecture alone.

use crate::transport_pin::{self, DeviceTransports};
use nvshmem_abi::{
    DEVICE_CHECKS_SYMBOL, MAPPED_SIGNAL_ADDS_SYMBOL, PINNED_DEVICE_TRANSPORT_SYMBOL,
    SIGNATURE_SYMBOL_PREFIX,
};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set (to `1`) in the nested build's environment; its presence puts the build script in linker mode.
pub(crate) const LINKER_MODE_VAR: &str = "NVSHMEM_BUILDER_LINKER";
/// NVSHMEM's device bitcode file of each architecture, as a search path (`:`-separated).
pub(crate) const DEVICE_BITCODE_VAR: &str = "NVSHMEM_BUILDER_DEVICE_BITCODE";
/// The architectures, `sm_XY`, comma-separated; the Rust code was compiled for the first.
pub(crate) const ARCH_VAR: &str = "NVSHMEM_BUILDER_ARCH";
/// The PTX ISA of each architecture, `major * 10 + minor`, comma-separated.
pub(crate) const PTX_ISA_VAR: &str = "NVSHMEM_BUILDER_PTX_ISA";
/// The device transports NVSHMEM's code keeps: `proxy` or `all` (see `transport_pin`).
pub(crate) const DEVICE_TRANSPORTS_VAR: &str = "NVSHMEM_BUILDER_DEVICE_TRANSPORTS";
/// The folder holding `llvm-link`, `opt`, `llc`, `llvm-ar`, `llvm-dis`.
pub(crate) const LLVM_BIN_VAR: &str = "NVSHMEM_BUILDER_LLVM_BIN";

/// NVSHMEM globals that `nvshmemx_cumodule_init` finds by name; they must stay visible.
pub const NVSHMEM_STATE_SYMBOLS: [&str; 2] =
    ["nvshmemi_device_state_d", "nvshmemi_device_lib_version_d"];

/// The `-internalize-public-api-list` of the link step: the kernels `exports`, and the globals the
/// host finds by name: NVSHMEM's ([`NVSHMEM_STATE_SYMBOLS`]), `nvshmem-gpu`'s, which a module
/// built without the device checks or the load/store path lacks (harmless to the internalize step),
/// the transport pin's mark, and `#[kernel]`'s signature global of each export (for the kernels;
/// other exports have none, also harmless), which the host reads before a typed launch.
fn public_api(exports: &[String]) -> String {
    let signatures: Vec<String> = exports
        .iter()
        .map(|export| format!("{SIGNATURE_SYMBOL_PREFIX}{export}"))
        .collect();
    let kept: Vec<&str> = exports
        .iter()
        .chain(&signatures)
        .map(String::as_str)
        .chain(NVSHMEM_STATE_SYMBOLS)
        .chain([
            DEVICE_CHECKS_SYMBOL,
            MAPPED_SIGNAL_ADDS_SYMBOL,
            PINNED_DEVICE_TRANSPORT_SYMBOL,
        ])
        .collect();
    kept.join(",")
}

/// The first line of every PTX file the link step writes; [`crate::BuiltPtx`] reads it back.
pub(crate) const PTX_HEADER_PREFIX: &str = "// nvshmem-builder:";

/// If this process was started by rustc as the nested build's linker, links and exits.
///
/// [`crate::PtxBuilder::build`] calls this first, so a build script needs no other code for it. Call it
/// yourself only if your build script does work before `build()` that must not run twice.
pub fn run_if_invoked_as_linker() {
    if std::env::var_os(LINKER_MODE_VAR).is_none() {
        return;
    }
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match LinkJob::from_environment(&args).and_then(|job| job.run()) {
        Ok(()) => std::process::exit(0),
        Err(message) => {
            eprintln!("nvshmem-builder link step: {message}");
            std::process::exit(1);
        }
    }
}

/// One architecture a link is for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LinkTarget {
    /// `sm_XY`.
    pub(crate) arch: String,
    /// NVSHMEM's device bitcode for it.
    pub(crate) device_bitcode: PathBuf,
    /// The PTX ISA to emit at least, `major * 10 + minor`.
    pub(crate) ptx_isa: u32,
}

impl LinkTarget {
    /// The link step's environment for `targets` (the first is the one rustc compiles for).
    pub(crate) fn environment(
        targets: &[LinkTarget],
    ) -> Result<[(&'static str, String); 3], crate::BuildError> {
        let bitcode =
            std::env::join_paths(targets.iter().map(|t| &t.device_bitcode)).map_err(|error| {
                crate::BuildError::Io {
                    path: targets[0].device_bitcode.clone(),
                    error: std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("{error}: install NVSHMEM under a path without `:`"),
                    ),
                }
            })?;
        let list = |field: fn(&LinkTarget) -> String| {
            targets.iter().map(field).collect::<Vec<_>>().join(",")
        };
        Ok([
            (DEVICE_BITCODE_VAR, bitcode.to_string_lossy().into_owned()),
            (ARCH_VAR, list(|t| t.arch.clone())),
            (PTX_ISA_VAR, list(|t| t.ptx_isa.to_string())),
        ])
    }

    fn from_environment() -> Result<Vec<LinkTarget>, String> {
        let archs = required_var(ARCH_VAR)?;
        let isas = required_var(PTX_ISA_VAR)?;
        let bitcode = std::env::var_os(DEVICE_BITCODE_VAR).ok_or_else(|| {
            format!("{DEVICE_BITCODE_VAR} is not set; the builder sets it for the link step")
        })?;
        let bitcode: Vec<PathBuf> = std::env::split_paths(&bitcode).collect();
        let archs: Vec<&str> = archs.split(',').collect();
        let isas = isas
            .split(',')
            .map(|isa| {
                isa.parse()
                    .map_err(|_| format!("{PTX_ISA_VAR}={isas} is not a list of numbers"))
            })
            .collect::<Result<Vec<u32>, _>>()?;
        if archs.len() != isas.len() || archs.len() != bitcode.len() {
            return Err(format!(
                "{ARCH_VAR}, {PTX_ISA_VAR} and {DEVICE_BITCODE_VAR} name different numbers of \
                 architectures; the builder sets them for the link step"
            ));
        }
        Ok(archs
            .into_iter()
            .zip(isas)
            .zip(bitcode)
            .map(|((arch, ptx_isa), device_bitcode)| LinkTarget {
                arch: arch.to_string(),
                device_bitcode,
                ptx_isa,
            })
            .collect())
    }
}

/// One link, as rustc asked for it.
#[derive(Debug, PartialEq)]
pub(crate) struct LinkJob {
    exports: Vec<String>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    targets: Vec<LinkTarget>,
    llvm_bin: PathBuf,
    transports: DeviceTransports,
}

fn required_var(name: &str) -> Result<String, String> {
    std::env::var(name)
        .map_err(|_| format!("{name} is not set; the builder sets it for the link step"))
}

impl LinkJob {
    fn from_environment(args: &[OsString]) -> Result<LinkJob, String> {
        let transports = required_var(DEVICE_TRANSPORTS_VAR)?;
        let transports = DeviceTransports::parse(&transports)
            .ok_or_else(|| format!("{DEVICE_TRANSPORTS_VAR}={transports} is not proxy or all"))?;
        LinkJob::parse(
            args,
            LinkTarget::from_environment()?,
            required_var(LLVM_BIN_VAR)?.into(),
            transports,
        )
    }

    /// Reads rustc's `llvm-bitcode-linker` command line: `--export-symbol NAME`, `-o OUT`, inputs, and
    /// options this step decides itself (`--target`, `--target-cpu`, `-L`, `-O*`, `--debug`, …).
    pub(crate) fn parse(
        args: &[OsString],
        targets: Vec<LinkTarget>,
        llvm_bin: PathBuf,
        transports: DeviceTransports,
    ) -> Result<LinkJob, String> {
        if targets.is_empty() {
            return Err("no architecture to link for; the builder names them".into());
        }
        let mut exports = Vec::new();
        let mut inputs = Vec::new();
        let mut output = None;
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let text = arg.to_string_lossy();
            let mut value = |flag: &str| {
                args.next()
                    .cloned()
                    .ok_or_else(|| format!("`{flag}` without a value"))
            };
            match text.as_ref() {
                "--export-symbol" => {
                    exports.push(value("--export-symbol")?.to_string_lossy().into())
                }
                "-o" => output = Some(PathBuf::from(value("-o")?)),
                "--target" | "--target-cpu" | "-L" => {
                    value(&text)?;
                }
                flag if flag.starts_with('-') => {}
                _ => inputs.push(PathBuf::from(arg)),
            }
        }
        let output = output.ok_or("rustc gave no `-o` output path")?;
        Ok(LinkJob {
            exports,
            inputs,
            output,
            targets,
            llvm_bin,
            transports,
        })
    }

    fn run(&self) -> Result<(), String> {
        let work = self.output.with_extension("link");
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let objects = self.unpack_inputs(&work)?;
        let rust = work.join("rust.bc");
        self.tool("llvm-link")
            .args(&objects)
            .arg("-o")
            .arg(&rust)
            .run()?;
        let compiled_for = &self.targets[0].arch;
        let results: Vec<Result<String, String>> = std::thread::scope(|scope| {
            let links: Vec<_> = self
                .targets
                .iter()
                .map(|target| {
                    let (rust, work) = (&rust, &work);
                    scope.spawn(move || {
                        let dir = work.join(&target.arch);
                        std::fs::create_dir_all(&dir)
                            .map_err(|e| format!("{}: {e}", dir.display()))?;
                        let rust = if target.arch == *compiled_for {
                            rust.clone()
                        } else {
                            self.retarget(rust, compiled_for, &target.arch, &dir)?
                        };
                        self.link_device(&rust, target, &dir)
                    })
                })
                .collect();
            links
                .into_iter()
                .map(|link| {
                    link.join()
                        .unwrap_or_else(|_| Err("a link thread panicked".into()))
                })
                .collect()
        });
        // One file for all architectures, each module after its header line, so that cargo's
        // output and its freshness cover them all.
        let mut modules = String::new();
        let mut errors = Vec::new();
        for result in results {
            match result {
                Ok(module) => modules.push_str(&module),
                Err(error) => errors.push(error),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        std::fs::write(&self.output, modules)
            .map_err(|e| format!("{}: {e}", self.output.display()))?;
        let _ = std::fs::remove_dir_all(&work);
        Ok(())
    }

    /// `rust` (compiled for `from`) as compiled for `to`: rustc's nvptx bitcode names the
    /// architecture only in its functions' `target-cpu` attribute, which decides what `llc` emits.
    fn retarget(&self, rust: &Path, from: &str, to: &str, dir: &Path) -> Result<PathBuf, String> {
        let text = dir.join("rust.ll");
        self.tool("llvm-dis").arg(rust).arg("-o").arg(&text).run()?;
        let ir = std::fs::read_to_string(&text).map_err(|e| format!("{}: {e}", text.display()))?;
        std::fs::write(&text, retarget_ir(&ir, from, to))
            .map_err(|e| format!("{}: {e}", text.display()))?;
        let retargeted = dir.join("rust.bc");
        self.tool("llvm-as")
            .arg(&text)
            .arg("-o")
            .arg(&retargeted)
            .run()?;
        Ok(retargeted)
    }

    /// Links `rust` with `target`'s device bitcode and optimizes: the PTX, after its header line.
    fn link_device(&self, rust: &Path, target: &LinkTarget, work: &Path) -> Result<String, String> {
        let linked = work.join("linked.bc");
        self.tool("llvm-link")
            .arg(rust)
            .arg("--only-needed")
            .arg(&target.device_bitcode)
            .arg("-o")
            .arg(&linked)
            .run()?;
        let linked_text = work.join("linked.ll");
        self.tool("llvm-dis")
            .arg(&linked)
            .arg("-o")
            .arg(&linked_text)
            .run()?;
        let ir = std::fs::read_to_string(&linked_text)
            .map_err(|e| format!("{}: {e}", linked_text.display()))?;
        let facts = LinkedModuleFacts::read(&ir)?;
        facts.check_arch(&target.arch, &target.device_bitcode)?;
        let (linked, transports) = self.pin_transport(&ir, &facts, linked, work)?;
        let optimized = work.join("optimized.bc");
        self.tool("opt")
            .arg("-passes=internalize,default<O3>")
            .arg(format!(
                "-internalize-public-api-list={}",
                public_api(&self.exports)
            ))
            .arg(&linked)
            .arg("-o")
            .arg(&optimized)
            .run()?;
        let ptx = work.join("module.ptx");
        let ptx_isa = target.ptx_isa.max(facts.max_ptx_isa);
        self.tool("llc")
            .args(["-mtriple=nvptx64-nvidia-cuda", "-O3"])
            .arg(format!("-mcpu={}", target.arch))
            .arg(format!("-mattr=+ptx{ptx_isa}"))
            .arg(&optimized)
            .arg("-o")
            .arg(&ptx)
            .run()?;
        let body = std::fs::read_to_string(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
        let header = format!(
            "{PTX_HEADER_PREFIX} nvshmem-device-version={} arch={} ptx-isa={ptx_isa} \
             device-transports={} bitcode={}\n",
            facts.nvshmem_version,
            target.arch,
            transports.as_str(),
            target.device_bitcode.display()
        );
        Ok(header + &body)
    }

    /// The module to optimize, `linked` (whose text is `ir`) or its copy compiled for the proxy
    /// transport alone where this link asks for it and the release allows it, and the transports
    /// its NVSHMEM code keeps.
    fn pin_transport(
        &self,
        ir: &str,
        facts: &LinkedModuleFacts,
        linked: PathBuf,
        work: &Path,
    ) -> Result<(PathBuf, DeviceTransports), String> {
        let offset = match (
            self.transports,
            transport_pin::pinnable_offset(&facts.nvshmem_version),
        ) {
            (DeviceTransports::Proxy, Some(offset)) => offset,
            _ => return Ok((linked, DeviceTransports::All)),
        };
        let (pinned, loads) = transport_pin::pin_to_proxy(ir, offset)?;
        if loads == 0 {
            // No transfer function that switches on the transport: nothing to pin or to check.
            return Ok((linked, DeviceTransports::All));
        }
        let path = work.join("pinned.ll");
        std::fs::write(&path, pinned).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path, DeviceTransports::Proxy))
    }

    /// The bitcode objects to link: plain inputs as they are, rlib members unpacked (`.o` only; the
    /// `.rmeta` member is metadata).
    fn unpack_inputs(&self, work: &Path) -> Result<Vec<PathBuf>, String> {
        let mut objects = Vec::new();
        for (index, input) in self.inputs.iter().enumerate() {
            if input.extension().is_some_and(|e| e == "rlib") {
                let dir = work.join(format!("rlib{index}"));
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                self.tool("llvm-ar")
                    .arg("x")
                    .arg(input)
                    .current_dir(&dir)
                    .run()?;
                let mut members: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .map_err(|e| format!("{}: {e}", dir.display()))?
                    .filter_map(|entry| Some(entry.ok()?.path()))
                    .filter(|path| path.extension().is_some_and(|e| e == "o"))
                    .collect();
                members.sort();
                objects.extend(members);
            } else {
                objects.push(input.clone());
            }
        }
        Ok(objects)
    }

    fn tool(&self, name: &str) -> ToolCommand {
        ToolCommand(Command::new(self.llvm_bin.join(name)))
    }
}

/// A command whose failure becomes a message with its command line and output.
struct ToolCommand(Command);

impl ToolCommand {
    fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.0.arg(arg);
        self
    }

    fn args<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(mut self, args: I) -> Self {
        self.0.args(args);
        self
    }

    fn current_dir(mut self, dir: &Path) -> Self {
        self.0.current_dir(dir);
        self
    }

    fn run(mut self) -> Result<(), String> {
        let output = self
            .0
            .output()
            .map_err(|e| format!("could not run {:?}: {e}", self.0))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{:?} failed ({}):\n{}{}",
                self.0,
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }
}

/// What the link step learns from the linked module's IR.
#[derive(Debug, PartialEq)]
pub(crate) struct LinkedModuleFacts {
    /// `nvshmemi_device_lib_version_d`'s initializer, e.g. `3.4.5`.
    nvshmem_version: String,
    /// The `target-cpu` values of the module's function attributes.
    target_cpus: Vec<String>,
    /// The highest `+ptxNN` feature in the module (0 if none).
    max_ptx_isa: u32,
}

impl LinkedModuleFacts {
    pub(crate) fn read(ir: &str) -> Result<LinkedModuleFacts, String> {
        let version_line = ir
            .lines()
            .find(|line| line.starts_with("@nvshmemi_device_lib_version_d ="))
            .ok_or(
                "the linked module has no nvshmemi_device_lib_version_d: the device bitcode is not \
                 NVSHMEM's, or the kernels call no NVSHMEM function",
            )?;
        let numbers: Vec<&str> = version_line
            .split("i32 ")
            .skip(1)
            .map(|part| {
                part.split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap_or("")
            })
            .collect();
        if numbers.len() < 3 || numbers.iter().any(|n| n.is_empty()) {
            return Err(format!(
                "cannot read NVSHMEM's version from `{version_line}`"
            ));
        }
        let mut target_cpus: Vec<String> = ir
            .split("\"target-cpu\"=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next().map(str::to_string))
            .collect();
        target_cpus.sort();
        target_cpus.dedup();
        let max_ptx_isa = ir
            .split("+ptx")
            .skip(1)
            .filter_map(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .max()
            .unwrap_or(0);
        Ok(LinkedModuleFacts {
            nvshmem_version: numbers[..3].join("."),
            target_cpus,
            max_ptx_isa,
        })
    }

    /// NVSHMEM's code is compiled for one architecture; targeting another would emit instructions the
    /// GPU lacks, or wrong per-architecture paths.
    pub(crate) fn check_arch(&self, arch: &str, device_bitcode: &Path) -> Result<(), String> {
        let foreign: Vec<&String> = self
            .target_cpus
            .iter()
            .filter(|cpu| cpu.starts_with("sm_") && cpu.as_str() != arch)
            .filter(|cpu| !is_rustc_default_cpu(cpu))
            .collect();
        if foreign.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} holds code for {:?}, not {arch}: choose that architecture, or use the NVSHMEM \
                 device bitcode built for {arch}",
                device_bitcode.display(),
                foreign
            ))
        }
    }
}

/// `ir` with every `"target-cpu"="<from>"` attribute saying `to` instead.
pub(crate) fn retarget_ir(ir: &str, from: &str, to: &str) -> String {
    ir.replace(
        &format!("\"target-cpu\"=\"{from}\""),
        &format!("\"target-cpu\"=\"{to}\""),
    )
}

/// rustc's own functions carry the target's default CPU unless `-Ctarget-cpu` is given; the builder
/// passes it, but core's precompiled parts may still say `sm_30`/`sm_70`.
fn is_rustc_default_cpu(cpu: &str) -> bool {
    matches!(cpu, "sm_30" | "sm_70")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm_90() -> Vec<LinkTarget> {
        vec![LinkTarget {
            arch: "sm_90".into(),
            device_bitcode: "nv.bc".into(),
            ptx_isa: 83,
        }]
    }

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn rustc_command_line_is_understood() {
        let job = LinkJob::parse(
            &args(&[
                "--export-symbol",
                "ring",
                "--export-symbol",
                "shift",
                "k.rcgu.o",
                "libcore-1.rlib",
                "--target",
                "nvptx64-nvidia-cuda",
                "--target-cpu",
                "sm_90",
                "--target-feature=+ptx70",
                "-L",
                "/x",
                "-o",
                "k.ptx",
                "-O3",
                "--debug",
            ]),
            sm_90(),
            "/bin".into(),
            DeviceTransports::Proxy,
        )
        .unwrap();
        assert_eq!(job.exports, ["ring", "shift"]);
        assert_eq!(
            job.inputs,
            [PathBuf::from("k.rcgu.o"), PathBuf::from("libcore-1.rlib")]
        );
        assert_eq!(job.output, PathBuf::from("k.ptx"));
    }

    #[test]
    fn missing_output_is_an_error() {
        let error = LinkJob::parse(&args(&["a.o"]), sm_90(), "/".into(), DeviceTransports::All);
        assert!(error.unwrap_err().contains("-o"));
    }

    const IR: &str = r#"
@nvshmemi_device_lib_version_d = dso_local addrspace(4) externally_initialized global %struct.nvshmemi_version_t { i32 3, i32 4, i32 5 }, align 4
attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx83,+sm_90" }
attributes #1 = { "target-cpu"="sm_70" "target-features"="+ptx60" }
"#;

    #[test]
    fn version_architecture_and_isa_are_read_from_the_ir() {
        let facts = LinkedModuleFacts::read(IR).unwrap();
        assert_eq!(facts.nvshmem_version, "3.4.5");
        assert_eq!(facts.target_cpus, ["sm_70", "sm_90"]);
        assert_eq!(facts.max_ptx_isa, 83);
        facts.check_arch("sm_90", Path::new("nv.bc")).unwrap();
        let error = facts.check_arch("sm_80", Path::new("nv.bc")).unwrap_err();
        assert!(error.contains("not sm_80"), "{error}");
    }

    #[test]
    fn retargeting_rewrites_the_target_cpu_attribute_only() {
        let ir = "attributes #0 = { \"target-cpu\"=\"sm_90\" }\n\
                  attributes #1 = { \"target-cpu\"=\"sm_90\" \"x\"=\"sm_90\" }\n";
        assert_eq!(
            retarget_ir(ir, "sm_90", "sm_100"),
            "attributes #0 = { \"target-cpu\"=\"sm_100\" }\n\
             attributes #1 = { \"target-cpu\"=\"sm_100\" \"x\"=\"sm_90\" }\n"
        );
    }

    #[test]
    fn a_module_without_nvshmem_is_reported() {
        let error = LinkedModuleFacts::read("define void @k() { ret void }").unwrap_err();
        assert!(error.contains("nvshmemi_device_lib_version_d"), "{error}");
    }

    #[test]
    fn internalizing_keeps_the_globals_the_host_fills() {
        let opt = crate::llvm_tools_dir()
            .expect("the toolchain's LLVM tools (rust-toolchain.toml lists them)")
            .join("opt");
        let module = "@NVSHMEMRS_DEVICE_CHECKS = global [3 x i64] [i64 60000000000, i64 0, i64 0]\n\
                      @NVSHMEMRS_MAPPED_SIGNAL_ADDS = global i32 0\n\
                      @NVSHMEMRS_PINNED_DEVICE_TRANSPORT = constant i32 0\n\
                      @nvshmemi_device_state_d = global i64 0\n\
                      @nvshmemrs_signature_kernel = constant [4 x i8] c\"NRS\\01\"\n\
                      @helper_state = global i64 0\n\
                      define void @kernel() { ret void }\n";
        let mut child = Command::new(opt)
            .arg("-passes=internalize,globaldce")
            .arg(format!(
                "-internalize-public-api-list={}",
                public_api(&["kernel".to_string()])
            ))
            .args(["-S", "-o", "-", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), module.as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        let ir = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{ir}");
        for kept in [
            "@NVSHMEMRS_DEVICE_CHECKS = global",
            "@NVSHMEMRS_MAPPED_SIGNAL_ADDS = global",
            "@NVSHMEMRS_PINNED_DEVICE_TRANSPORT = constant",
            "@nvshmemi_device_state_d = global",
            "@nvshmemrs_signature_kernel = constant",
            "define void @kernel",
        ] {
            assert!(ir.contains(kept), "{kept} is gone:\n{ir}");
        }
        assert!(!ir.contains("@helper_state"), "unused globals go:\n{ir}");
    }

    proptest::proptest! {
        /// As the `builder_inputs` fuzz target: any command line or IR text is read or refused,
        /// never a panic.
        #[test]
        fn any_linker_input_is_read_or_refused(
            args in proptest::collection::vec("-o|--export-symbol|--target|-L|-O3|[a-z./]{0,8}", 0..8),
            ir in "((@nvshmemi_device_lib_version_d = .{0,20}(i32 [0-9]{0,3}, ?){0,4}|\"target-cpu\"=\"sm_[0-9]{0,3}\"|\\+ptx[0-9]{0,3}|.{0,10})\n?){0,5}",
        ) {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            let job = LinkJob::parse(&args, sm_90(), "bin".into(), DeviceTransports::All);
            if let Ok(job) = job {
                proptest::prop_assert!(args.contains(&OsString::from("-o")));
                proptest::prop_assert!(!job.output.as_os_str().is_empty() || args.len() > 1);
            }
            if let Ok(facts) = LinkedModuleFacts::read(&ir) {
                proptest::prop_assert_eq!(facts.nvshmem_version.split('.').count(), 3);
                let _ = facts.check_arch("sm_90", Path::new("d.bc"));
            }
        }
    }
}
