//! Machine code compiled ahead of time: `ptxas` turns the PTX into SASS for chosen architectures and
//! `fatbinary` bundles them, so that a module loads on those GPUs without the driver's JIT (which
//! takes minutes for NVSHMEM 3.8's large device functions and is paid again on every new machine).

use crate::BuildError;
use crate::arch::compute_capability;
use crate::ptxas::{digest, run};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that chooses the architectures given SASS, over the builder's setting
/// and the profile's default: a comma-separated list (`sm_90,sm_100`), or `none`.
pub const SASS_VAR: &str = "NVSHMEMRS_SASS";

/// PTX at least this large is compiled as relocatable code and linked by `nvlink`: modules of many
/// megabytes (NVSHMEM 3.8's network transports where they are kept, or its reductions inlined for
/// every type and operator) take minutes of whole-program `ptxas` per architecture, relocatable
/// code a fraction of that. Relocatable code is not the code the driver's JIT makes, and runs
/// measurably faster in some kernels and slower in others, so every module below this size gets
/// the whole-program compile the JIT would do: the size is chosen to cover every benchmark module
/// with NVSHMEM 3.4.5, and all but the largest of 3.8's compiled for its proxy transport. Both
/// compiles optimize functions on every core (`--split-compile 0`), which leaves the machine code
/// as it is.
const RELOCATABLE_FROM_BYTES: usize = 5 << 20;

/// `ptxas`'s options for whole-program machine code, and for relocatable code (then linked by
/// `nvlink`); both name the cached file, so that a change of either compiles again.
const WHOLE_PROGRAM_FLAGS: [&str; 3] = ["-O3", "--split-compile", "0"];
const RELOCATABLE_FLAGS: [&str; 4] = ["-c", "-O3", "--split-compile", "0"];

/// Where the architectures come from when neither [`SASS_VAR`] nor the builder names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// A release build: SASS for the build machine's GPUs, or for the PTX's architecture.
    Release,
    /// Any other build: PTX only, which builds faster; the driver compiles it at the first load.
    Other,
}

impl Profile {
    /// The profile of the build script's crate, as cargo tells build scripts (`PROFILE`); a tool
    /// that is not a build script counts as [`Profile::Other`].
    pub fn of_build_script() -> Profile {
        if std::env::var("PROFILE").is_ok_and(|profile| profile == "release") {
            Profile::Release
        } else {
            Profile::Other
        }
    }
}

/// The architectures to compile SASS for, for PTX of `ptx_arch`: [`SASS_VAR`] if set, else
/// `chosen` (the builder's setting) if any, else in a release build the build machine's GPUs that
/// can run the PTX (`gpus`), or `ptx_arch` when it has none of those.
pub fn archs(
    ptx_arch: &str,
    chosen: Option<&[String]>,
    profile: Profile,
    gpus: impl FnOnce() -> Vec<String>,
) -> Result<Vec<String>, BuildError> {
    let listed = match std::env::var(SASS_VAR) {
        Ok(value) => Some(parse_list(&value)?),
        Err(_) => chosen.map(<[String]>::to_vec),
    };
    let ptx_capability = compute_capability(ptx_arch)?;
    let archs = match listed {
        Some(archs) => archs,
        None if profile == Profile::Release => {
            let runnable: Vec<String> = gpus()
                .into_iter()
                .filter(|arch| compute_capability(arch).is_ok_and(|cc| cc >= ptx_capability))
                .collect();
            if runnable.is_empty() {
                vec![ptx_arch.to_string()]
            } else {
                runnable
            }
        }
        None => Vec::new(),
    };
    for arch in &archs {
        if compute_capability(arch)? < ptx_capability {
            return Err(BuildError::SassBelowPtx {
                arch: arch.clone(),
                ptx_arch: ptx_arch.to_string(),
            });
        }
    }
    Ok(archs)
}

/// The architectures of a [`SASS_VAR`] value, checked; `none` (or nothing) is none.
fn parse_list(value: &str) -> Result<Vec<String>, BuildError> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let mut archs: Vec<String> = Vec::new();
    for arch in value.split(',').map(str::trim) {
        compute_capability(arch).map_err(|_| BuildError::SassVariable {
            value: value.to_string(),
            problem: format!("`{arch}` is not an architecture name"),
        })?;
        if !archs.iter().any(|seen| seen == arch) {
            archs.push(arch.to_string());
        }
    }
    Ok(archs)
}

/// The architectures of this machine's GPUs, as `nvidia-smi` reports their compute capabilities;
/// none where it is missing or fails (a build machine without a GPU).
pub fn build_machine_gpus() -> Vec<String> {
    let Ok(output) = Command::new("nvidia-smi")
        .args(["--query-gpu=compute_cap", "--format=csv,noheader"])
        .output()
    else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    let mut archs: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if let Some((major, minor)) = line.trim().split_once('.') {
            let arch = format!("sm_{major}{minor}");
            if compute_capability(&arch).is_ok() && !archs.contains(&arch) {
                archs.push(arch);
            }
        }
    }
    archs
}

/// Compiles the PTX `text` (written at `ptx`) for each of `archs` with `ptxas -O3`, as the driver
/// would (as relocatable code linked by `nvlink` for large modules), and bundles the results into
/// the fat binary `out`. Each architecture's machine code is kept in `cache` under a digest of the
/// text, the architecture and the `ptxas` file, so that an unchanged kernel crate is not compiled
/// again; it must define every one of `kernels` (the PTX's entries). With no architectures (or no
/// `ptxas`), `out` is written empty: the host then loads the PTX.
pub fn build(
    ptxas: Option<&Path>,
    ptx: &Path,
    text: &str,
    kernels: &[String],
    archs: &[String],
    cache: &Path,
    out: &Path,
) -> Result<(), BuildError> {
    let Some(ptxas) = ptxas.filter(|_| !archs.is_empty()) else {
        return write(out, &[]);
    };
    let fatbinary = tool_beside(ptxas, "fatbinary")?;
    let mut command = Command::new(&fatbinary);
    command
        .arg("--64")
        .arg(format!("--create={}", out.display()));
    let relocatable = text.len() >= RELOCATABLE_FROM_BYTES;
    for arch in archs {
        let cubin = compile(ptxas, ptx, text, kernels, arch, relocatable, cache)?;
        let sm = arch.trim_start_matches("sm_");
        command.arg(format!(
            "--image3=kind=elf,sm={sm},file={}",
            cubin.display()
        ));
    }
    run(command, &fatbinary, |output| BuildError::FatbinaryFailed {
        out: out.to_path_buf(),
        output,
    })
}

/// The cached file of `text`'s machine code for `arch`, named by a digest of the text, the
/// architecture, the `ptxas` file and its options.
fn cache_name(ptxas: &Path, text: &str, arch: &str, relocatable: bool) -> String {
    let flags = if relocatable {
        &RELOCATABLE_FLAGS[..]
    } else {
        &WHOLE_PROGRAM_FLAGS[..]
    };
    let key = format!("{arch} {}", flags.join(" "));
    format!("sass-{:016x}.{arch}.cubin", digest(ptxas, text, &key))
}

/// The machine code of `text` for `arch`, from `cache` or compiled into it (as relocatable code
/// linked by `nvlink`, if `relocatable`); it defines every one of `kernels` (a cached file that does
/// not is compiled again).
fn compile(
    ptxas: &Path,
    ptx: &Path,
    text: &str,
    kernels: &[String],
    arch: &str,
    relocatable: bool,
    cache: &Path,
) -> Result<PathBuf, BuildError> {
    let cubin = cache.join(cache_name(ptxas, text, arch, relocatable));
    if std::fs::read(&cubin).is_ok_and(|code| missing_kernels(&code, kernels).is_empty()) {
        return Ok(cubin);
    }
    std::fs::create_dir_all(cache).map_err(|error| BuildError::Io {
        path: cache.to_path_buf(),
        error,
    })?;
    // Written beside its final name and renamed, so that an interrupted compile leaves no
    // truncated file for the next build to take.
    let partial = cubin.with_extension("cubin.partial");
    let arch_flag = format!("-arch={arch}");
    if relocatable {
        // nvlink tells its inputs' kinds by their extensions and skips, without a word, a file
        // whose extension it does not know: the object must end in `.o`.
        let object = cubin.with_extension("partial.o");
        let mut assemble = Command::new(ptxas);
        assemble
            .args(RELOCATABLE_FLAGS)
            .arg(&arch_flag)
            .arg(ptx)
            .arg("-o")
            .arg(&object);
        run(assemble, ptxas, |output| BuildError::PtxasRejected {
            ptx: ptx.to_path_buf(),
            arch: arch.to_string(),
            output,
        })?;
        let nvlink = tool_beside(ptxas, "nvlink")?;
        let mut link = Command::new(&nvlink);
        link.arg(&arch_flag).arg(&object).arg("-o").arg(&partial);
        run(link, &nvlink, |output| BuildError::NvlinkFailed {
            object: object.clone(),
            output,
        })?;
        // Only the linked machine code is kept.
        let _ = std::fs::remove_file(&object);
    } else {
        let mut assemble = Command::new(ptxas);
        assemble
            .args(WHOLE_PROGRAM_FLAGS)
            .arg(&arch_flag)
            .arg(ptx)
            .arg("-o")
            .arg(&partial);
        run(assemble, ptxas, |output| BuildError::PtxasRejected {
            ptx: ptx.to_path_buf(),
            arch: arch.to_string(),
            output,
        })?;
    }
    let code = std::fs::read(&partial).map_err(|error| BuildError::Io {
        path: partial.clone(),
        error,
    })?;
    let missing = missing_kernels(&code, kernels);
    if !missing.is_empty() {
        return Err(BuildError::SassMissingKernels {
            ptx: ptx.to_path_buf(),
            arch: arch.to_string(),
            kernels: missing,
        });
    }
    std::fs::rename(&partial, &cubin).map_err(|error| BuildError::Io {
        path: cubin.clone(),
        error,
    })?;
    Ok(cubin)
}

/// The names of `kernels` that the machine code `code` (an ELF cubin) does not define: a kernel's
/// code lies in the section `.text.NAME`, whose name the cubin's section names hold.
fn missing_kernels(code: &[u8], kernels: &[String]) -> Vec<String> {
    let defined: HashSet<&[u8]> = code
        .split(|&byte| byte == 0)
        .filter_map(|name| name.strip_prefix(b".text."))
        .collect();
    kernels
        .iter()
        .filter(|kernel| !defined.contains(kernel.as_bytes()))
        .cloned()
        .collect()
}

/// `tool` (`fatbinary`, `nvlink`), which CUDA and the `nvidia-cuda-nvcc` wheel keep beside `ptxas`.
fn tool_beside(ptxas: &Path, tool: &str) -> Result<PathBuf, BuildError> {
    let dir = ptxas.parent().unwrap_or(Path::new("."));
    let path = dir.join(tool);
    if path.is_file() {
        Ok(path)
    } else {
        Err(BuildError::ToolMissing {
            tool: tool.to_string(),
            looked_in: dir.to_path_buf(),
            fix: "use a ptxas from a full CUDA toolkit or the nvidia-cuda-nvcc wheel, which keep \
                  fatbinary and nvlink beside it, or build without machine code: \
                  NVSHMEMRS_SASS=none",
        })
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(path, bytes).map_err(|error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(archs: &[&str]) -> Vec<String> {
        archs.iter().map(|arch| arch.to_string()).collect()
    }

    // The variable is read by `archs`; these tests run where it is unset (CI's environment), and
    // the parsing it goes through is tested on its own below.
    fn without_variable() -> bool {
        std::env::var_os(SASS_VAR).is_none()
    }

    #[test]
    fn a_release_build_takes_the_gpus_that_can_run_the_ptx_or_the_ptx_arch() {
        if !without_variable() {
            return;
        }
        let gpus = || strings(&["sm_80", "sm_90", "sm_100"]);
        assert_eq!(
            archs("sm_90", None, Profile::Release, gpus).unwrap(),
            strings(&["sm_90", "sm_100"])
        );
        let older = || strings(&["sm_80"]);
        assert_eq!(
            archs("sm_90", None, Profile::Release, older).unwrap(),
            strings(&["sm_90"])
        );
        assert_eq!(
            archs("sm_90", None, Profile::Release, Vec::new).unwrap(),
            strings(&["sm_90"])
        );
    }

    #[test]
    fn other_builds_keep_ptx_only_unless_the_builder_names_architectures() {
        if !without_variable() {
            return;
        }
        let no_gpu_query = || -> Vec<String> { panic!("only release builds ask for the GPUs") };
        assert!(
            archs("sm_90", None, Profile::Other, no_gpu_query)
                .unwrap()
                .is_empty()
        );
        let chosen = strings(&["sm_100"]);
        assert_eq!(
            archs("sm_90", Some(&chosen), Profile::Other, Vec::new).unwrap(),
            chosen
        );
        assert!(
            archs("sm_90", Some(&[]), Profile::Release, Vec::new)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn sass_older_than_the_ptx_is_refused_with_both_architectures_named() {
        if !without_variable() {
            return;
        }
        let chosen = strings(&["sm_80"]);
        let message = archs("sm_90", Some(&chosen), Profile::Release, Vec::new)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("sm_80") && message.contains("sm_90"),
            "{message}"
        );
    }

    #[test]
    fn the_variable_takes_a_list_or_none_and_names_a_bad_entry() {
        assert_eq!(
            parse_list(" sm_90, sm_100 ,sm_90").unwrap(),
            strings(&["sm_90", "sm_100"])
        );
        assert!(parse_list("none").unwrap().is_empty());
        assert!(parse_list("").unwrap().is_empty());
        let message = parse_list("sm_90,hopper").unwrap_err().to_string();
        assert!(
            message.contains("`hopper`") && message.contains(SASS_VAR),
            "{message}"
        );
    }

    #[test]
    fn missing_kernels_are_those_without_a_text_section() {
        let code = b"\x7fELF\0.text.first\0.nv.info.second\0.text.third\0";
        assert_eq!(
            missing_kernels(code, &strings(&["first", "second", "third"])),
            strings(&["second"])
        );
    }

    /// Two empty kernels, as the link step writes them (without its header line).
    const TWO_KERNELS: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry first()\n{\n\tret;\n}\n.visible .entry second()\n{\n\tret;\n}\n";

    #[test]
    fn machine_code_defines_every_kernel_compiled_whole_or_relocatable() {
        let start = Path::new(env!("CARGO_MANIFEST_DIR"));
        let ptxas = crate::ptxas::find(start)
            .expect("no ptxas: `./x deps` installs it into the checkout's .deps");
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let ptx = dir.join("k.ptx");
        std::fs::write(&ptx, TWO_KERNELS).unwrap();
        let kernels = strings(&["first", "second"]);
        let compiled = |relocatable: bool, cache: &Path| {
            let cubin = compile(
                &ptxas,
                &ptx,
                TWO_KERNELS,
                &kernels,
                "sm_90",
                relocatable,
                cache,
            )
            .unwrap();
            missing_kernels(&std::fs::read(cubin).unwrap(), &kernels)
        };
        for relocatable in [false, true] {
            let cache = dir.join(format!("cache-{relocatable}"));
            assert_eq!(
                compiled(relocatable, &cache),
                Vec::<String>::new(),
                "relocatable: {relocatable}"
            );
        }
        // A cached file without the kernels (as an earlier build could leave) is compiled again.
        let cache = dir.join("cache-stale");
        std::fs::create_dir_all(&cache).unwrap();
        let stale = cache.join(cache_name(&ptxas, TWO_KERNELS, "sm_90", true));
        std::fs::write(&stale, b"\x7fELF\0").unwrap();
        assert_eq!(compiled(true, &cache), Vec::<String>::new());
    }

    #[test]
    fn whole_program_and_relocatable_code_are_cached_apart() {
        let ptxas = Path::new("/nonexistent/ptxas");
        let whole = cache_name(ptxas, TWO_KERNELS, "sm_90", false);
        assert_ne!(whole, cache_name(ptxas, TWO_KERNELS, "sm_90", true));
        assert_ne!(whole, cache_name(ptxas, TWO_KERNELS, "sm_100", false));
        assert_eq!(whole, cache_name(ptxas, TWO_KERNELS, "sm_90", false));
        assert!(whole.ends_with(".sm_90.cubin"), "{whole}");
    }

    #[test]
    fn no_architectures_write_an_empty_image_without_running_anything() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let out = dir.join("k.fatbin");
        std::fs::write(&out, b"stale").unwrap();
        build(
            Some(Path::new("/nonexistent/ptxas")),
            &dir.join("k.ptx"),
            "",
            &[],
            &[],
            dir,
            &out,
        )
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"");
    }
}
