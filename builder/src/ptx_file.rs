//! The PTX files the link step writes: one module per architecture after a header line that says
//! what was linked, split apart, checked for the kernels and NVSHMEM's state symbols, and given
//! the register limits a build asks for.

use crate::{BuildError, DeviceTransports, NVSHMEM_STATE_SYMBOLS, linker};
use std::path::Path;

/// The modules of a file the link step wrote, one per architecture, each from its header line on,
/// with the architecture its header names.
pub(crate) fn split_modules(text: &str) -> Vec<(&str, &str)> {
    let starts: Vec<usize> = text
        .match_indices(linker::PTX_HEADER_PREFIX)
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')
        .chain([text.len()])
        .collect();
    starts
        .windows(2)
        .map(|bounds| {
            let module = &text[bounds[0]..bounds[1]];
            let header = module.lines().next().unwrap_or_default();
            (header_field(header, "arch").unwrap_or_default(), module)
        })
        .collect()
}

/// The value of `key` in a header line the link step wrote (`… arch=sm_90 ptx-isa=83 …`).
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    header
        .split_whitespace()
        .find_map(|field| field.strip_prefix(key)?.strip_prefix('='))
}

/// What a PTX module written by the link step says of itself.
#[derive(Debug)]
pub(crate) struct PtxFacts {
    /// Its `.entry` names.
    pub(crate) kernels: Vec<String>,
    /// The NVSHMEM release of the device code linked.
    pub(crate) nvshmem_version: String,
    /// The PTX ISA, `major * 10 + minor`.
    pub(crate) ptx_isa: u32,
    /// The device transports its NVSHMEM code keeps.
    pub(crate) device_transports: DeviceTransports,
}

/// Checks one module the link step wrote (part of `nested_ptx`), applies `register_limits` and
/// writes it to `path`: its text and what it says of itself.
pub(crate) fn finish_ptx(
    nested_ptx: &Path,
    module: &str,
    path: &Path,
    register_limits: &[(String, u32)],
) -> Result<(String, PtxFacts), BuildError> {
    let mut text = module.to_string();
    let facts = inspect_ptx(nested_ptx, &text)?;
    for (kernel, registers) in register_limits {
        text = limit_registers(&text, kernel, *registers).map_err(|problem| {
            BuildError::RegisterLimit {
                kernel: kernel.clone(),
                registers: *registers,
                problem,
                kernels: facts.kernels.clone(),
            }
        })?;
    }
    std::fs::write(path, &text).map_err(|error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok((text, facts))
}

/// What a PTX file written by the link step says of itself; an error if NVSHMEM's state symbols or
/// the kernels are missing.
pub(crate) fn inspect_ptx(path: &Path, text: &str) -> Result<PtxFacts, BuildError> {
    let invalid = |problem: String| BuildError::InvalidPtx {
        ptx: path.to_path_buf(),
        problem,
    };
    let header = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix(linker::PTX_HEADER_PREFIX))
        .ok_or_else(|| {
            invalid("no nvshmem-builder header line: it was not linked by nvshmem-builder".into())
        })?;
    let field = |key: &str| {
        header_field(header, key)
            .ok_or_else(|| invalid(format!("its nvshmem-builder header line has no {key}")))
    };
    let nvshmem_version = field("nvshmem-device-version")?.to_string();
    let ptx_isa = field("ptx-isa")?
        .parse()
        .map_err(|_| invalid("its nvshmem-builder header's ptx-isa is not a number".into()))?;
    let device_transports =
        DeviceTransports::parse(field("device-transports")?).ok_or_else(|| {
            invalid("its nvshmem-builder header's device-transports is not proxy or all".into())
        })?;
    let kernels: Vec<String> = text
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix(".visible .entry "))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .collect();
    if kernels.is_empty() {
        return Err(invalid(
            "it has no kernels: mark kernel functions with #[kernel]".into(),
        ));
    }
    for symbol in NVSHMEM_STATE_SYMBOLS {
        if !text.contains(&format!(" {symbol}")) {
            return Err(invalid(format!(
                "it does not define {symbol}, which nvshmemx_cumodule_init needs; the kernels must \
                 call at least one NVSHMEM function"
            )));
        }
    }
    Ok(PtxFacts {
        kernels,
        nvshmem_version,
        ptx_isa,
        device_transports,
    })
}

/// `text` with `.maxnreg registers` on the entry `kernel` (between its parameter list and its body),
/// or what is wrong: the register count out of range, no such entry, or a limit already there.
pub(crate) fn limit_registers(text: &str, kernel: &str, registers: u32) -> Result<String, String> {
    if !(16..=255).contains(&registers) {
        return Err("the limit must be 16 to 255 registers per thread".into());
    }
    let entry = format!(".visible .entry {kernel}(");
    let start = text
        .find(&entry)
        .ok_or_else(|| "the PTX has no such kernel".to_string())?;
    let body = start
        + text[start..]
            .find("\n{")
            .ok_or_else(|| "the kernel's body was not found in the PTX".to_string())?;
    if text[start..body].contains(".maxnreg") {
        return Err("the kernel already has a register limit".into());
    }
    Ok(format!(
        "{}\n.maxnreg {registers}{}",
        &text[..body],
        &text[body..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_inspection_finds_kernels_version_and_state_symbols() {
        let ptx = "// nvshmem-builder: nvshmem-device-version=3.8.0 arch=sm_90 ptx-isa=83 \
                   device-transports=proxy bitcode=x\n\
                   .visible .const .align 8 .b8 nvshmemi_device_state_d[1];\n\
                   .visible .const .align 4 .b8 nvshmemi_device_lib_version_d[12];\n\
                   .visible .entry ring(\n.visible .entry shift(\n";
        let facts = inspect_ptx(Path::new("k.ptx"), ptx).unwrap();
        assert_eq!(facts.kernels, ["ring", "shift"]);
        assert_eq!(facts.nvshmem_version, "3.8.0");
        assert_eq!(facts.ptx_isa, 83);
        assert_eq!(facts.device_transports, DeviceTransports::Proxy);
        let all = ptx.replace("=proxy", "=all");
        let facts = inspect_ptx(Path::new("k.ptx"), &all).unwrap();
        assert_eq!(facts.device_transports, DeviceTransports::All);
        for header in ["=ibgda", ""] {
            let error = inspect_ptx(Path::new("k.ptx"), &ptx.replace("=proxy", header))
                .unwrap_err()
                .to_string();
            assert!(error.contains("device-transports"), "{error}");
        }
        let without_state = ptx.replace("nvshmemi_device_state_d", "x");
        let error = inspect_ptx(Path::new("k.ptx"), &without_state)
            .unwrap_err()
            .to_string();
        assert!(error.contains("nvshmemi_device_state_d"), "{error}");
    }

    #[test]
    fn a_link_for_several_architectures_is_split_at_its_header_lines() {
        let sm_80 = "// nvshmem-builder: nvshmem-device-version=3.8.0 arch=sm_80 ptx-isa=88 \
                     bitcode=a\n.target sm_80\n";
        let sm_90 = "// nvshmem-builder: nvshmem-device-version=3.8.0 arch=sm_90 ptx-isa=88 \
                     bitcode=b\n.target sm_90 // nvshmem-builder: arch=sm_100, not a header\n";
        let both = format!("{sm_80}{sm_90}");
        assert_eq!(split_modules(&both), [("sm_80", sm_80), ("sm_90", sm_90)]);
        assert_eq!(split_modules(sm_90), [("sm_90", sm_90)]);
        assert_eq!(split_modules(".target sm_90\n"), []);
    }

    #[test]
    fn register_limits_go_between_the_parameters_and_the_body_of_their_kernel_only() {
        let ptx = ".visible .entry ring(\n\t.param .u64 ring_param_0\n)\n{\n\tret;\n}\n\
                   .visible .entry shift(\n\t.param .u64 shift_param_0\n)\n{\n\tret;\n}\n";
        let limited = limit_registers(ptx, "shift", 64).unwrap();
        assert_eq!(
            limited,
            ptx.replace("shift_param_0\n)\n{", "shift_param_0\n)\n.maxnreg 64\n{")
        );
        assert!(
            limit_registers(&limited, "shift", 32)
                .unwrap_err()
                .contains("already")
        );
        assert!(
            limit_registers(ptx, "shif", 64)
                .unwrap_err()
                .contains("no such kernel")
        );
        for registers in [0, 15, 256] {
            assert!(
                limit_registers(ptx, "ring", registers)
                    .unwrap_err()
                    .contains("16 to 255")
            );
        }
        let error = BuildError::RegisterLimit {
            kernel: "shif".into(),
            registers: 64,
            problem: "the PTX has no such kernel".into(),
            kernels: vec!["ring".into(), "shift".into()],
        }
        .to_string();
        assert!(
            error.contains("max_registers(\"shif\", 64)") && error.contains("ring, shift"),
            "{error}"
        );
    }

    proptest::proptest! {
        /// As the `builder_inputs` fuzz target: any PTX text, kernel name and register count is
        /// inspected and limited or refused, never a panic.
        #[test]
        fn any_ptx_is_read_or_refused(
            ptx in "(// nvshmem-builder: nvshmem-device-version=[0-9.]{0,6}| device-transports=(proxy|all)|\\.visible \\.entry [a-z]{0,3}\\(|\n\\{| nvshmemi_device_state_d| nvshmemi_device_lib_version_d|.maxnreg|.{0,8})*",
            kernel in "[a-z]{0,3}",
            registers in 0u32..300,
        ) {
            if let Ok(facts) = inspect_ptx(Path::new("k.ptx"), &ptx) {
                proptest::prop_assert!(!facts.kernels.is_empty());
            }
            for (_, module) in split_modules(&ptx) {
                proptest::prop_assert!(module.starts_with(linker::PTX_HEADER_PREFIX));
            }
            if let Ok(limited) = limit_registers(&ptx, &kernel, registers) {
                let line = format!(".maxnreg {}", registers);
                proptest::prop_assert!(limited.contains(&line));
            }
        }
    }
}
