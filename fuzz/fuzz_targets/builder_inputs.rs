//! The builder's readers of what it is handed (rustc's linker command line and rendered messages,
//! the linked module's IR, the PTX its link step wrote, cargo's dep-info and stderr, the
//! architecture name): malformed input is an error, never a panic. The first byte picks the reader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nvshmem_builder::fuzzing;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match which % 6 {
        0 => {
            let args: Vec<OsString> = rest
                .split(|&b| b == 0)
                .map(|a| OsString::from_vec(a.to_vec()))
                .collect();
            let _ = fuzzing::linker_command_line(&args);
        }
        1 => {
            let (ir, arch) = text.split_once('\0').unwrap_or((&text, "sm_90"));
            let _ = fuzzing::linked_module_ir(ir, arch);
        }
        2 => {
            let registers = u32::from(rest.first().copied().unwrap_or(0));
            let (ptx, kernel) = text.split_once('\0').unwrap_or((&text, "k"));
            if let Ok((kernels, _)) = fuzzing::ptx(ptx, kernel, registers) {
                assert!(!kernels.is_empty());
            }
        }
        3 => {
            let _ = fuzzing::dep_info(&text);
        }
        4 => {
            let _ = fuzzing::rendered_message(&text);
        }
        _ => {
            if let Ok(capability) = fuzzing::architecture(&text) {
                assert!(capability >= 10, "{text:?} gave {capability}");
            }
        }
    }
});
