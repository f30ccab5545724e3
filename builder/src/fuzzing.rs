//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`): every reader of what the
//! builder is handed by rustc (the linker command line, its rendered messages), the LLVM tools (the
//! linked module's IR), its own link step (the PTX header) and cargo (dep-info, its stderr), and of
//! the caller's architecture name.
//! Each must refuse malformed input with an error, never panic.

use crate::linker::{LinkJob, LinkTarget, LinkedModuleFacts};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Reads rustc's linker command line as the link step does.
pub fn linker_command_line(args: &[OsString]) -> Result<(), String> {
    let target = LinkTarget {
        arch: "sm_90".into(),
        device_bitcode: "device.bc".into(),
        ptx_isa: 83,
    };
    LinkJob::parse(
        args,
        vec![target],
        "bin".into(),
        crate::DeviceTransports::All,
    )
    .map(drop)
}

/// Reads the linked module's IR text, and checks its architecture against `arch`.
pub fn linked_module_ir(ir: &str, arch: &str) -> Result<(), String> {
    LinkedModuleFacts::read(ir)?.check_arch(arch, Path::new("device.bc"))
}

/// Inspects a PTX file's text as [`crate::PtxBuilder::build`] does, then limits the registers of
/// `kernel`: the kernels and NVSHMEM version found, or the first error.
pub fn ptx(text: &str, kernel: &str, registers: u32) -> Result<(Vec<String>, String), String> {
    let facts =
        crate::ptx_file::inspect_ptx(Path::new("k.ptx"), text).map_err(|e| e.to_string())?;
    crate::ptx_file::limit_registers(text, kernel, registers)?;
    Ok((facts.kernels, facts.nvshmem_version))
}

/// The sources a dep-info file lists.
pub fn dep_info(text: &str) -> Vec<PathBuf> {
    crate::nested_cargo::parse_dep_info(text)
}

/// rustc's rendered message with its locations rewritten as for a project in `/p` whose kernel
/// crate is `/p/kernels`, without colours; and cargo's stderr less its progress.
pub fn rendered_message(text: &str) -> (String, String) {
    let paths = crate::diagnostics::SourcePaths {
        compiled_in: "/p/kernels".into(),
        shown_from: "/p".into(),
    };
    (
        crate::diagnostics::without_colours(&paths.rewrite(text)),
        crate::diagnostics::cargo_lines(text),
    )
}

/// The compute capability of an architecture name.
pub fn architecture(arch: &str) -> Result<u32, String> {
    crate::arch::compute_capability(arch).map_err(|e| e.to_string())
}
