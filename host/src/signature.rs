//! The check of a typed launch's descriptor against the loaded module: the host build of the
//! kernel crate wrote its view of the kernel into the descriptor, the device build wrote its own
//! into the module's signature global (see `nvshmem_abi`'s launch items); a launch goes ahead only
//! where both come from the same crate and version and agree on every parameter's type.

use crate::error::DriverErrorContext as _;
use crate::{Error, ModuleError};
use cudarc::driver::sys::{CUmodule, cudaError_enum};
use nvshmem_abi::{KernelDescriptor, ParamCode, SIGNATURE_SYMBOL_PREFIX, Signature};
use std::ffi::CString;

/// Refuses the kernel `K::NAME` of `module` unless the module's signature of it is `K`'s.
pub(crate) fn check<K: KernelDescriptor>(module: CUmodule) -> Result<(), Error> {
    let stored = read(module, K::NAME)?;
    compare(
        &Expected::of::<K>(),
        stored.as_deref().and_then(Signature::decode),
    )
    .map_err(Error::from)
}

/// Checks the launch descriptor `K` against the signature of its kernel in the PTX text `ptx`,
/// without a GPU: the check [`Module::typed_kernel`](crate::Module::typed_kernel) makes once the
/// PTX is loaded, with the same errors, for a test or a tool that vets a kernel crate's PTX before
/// it reaches a GPU.
///
/// ```no_run
/// # fn ptx_matches<K: nvshmem_host::KernelDescriptor>(ptx: &str) {
/// // `K`: a descriptor `#[kernel]` emitted in the host build of the crate the PTX was built from.
/// nvshmem_host::check_ptx_signature::<K>(ptx).expect("the PTX is this build's");
/// # }
/// ```
pub fn check_ptx_signature<K: KernelDescriptor>(ptx: &str) -> Result<(), ModuleError> {
    let stored = ptx_global(ptx, &symbol(K::NAME));
    compare(
        &Expected::of::<K>(),
        stored.as_deref().and_then(Signature::decode),
    )
}

/// The bytes of the visible byte-array global `symbol` of `ptx`, as its initialiser gives them
/// (`.visible .global .align 1 .b8 symbol[N] = {b0, b1, …};`); `None` where there is none.
fn ptx_global(ptx: &str, symbol: &str) -> Option<Vec<u8>> {
    let declarator = format!(" {symbol}[");
    let line = ptx
        .lines()
        .find(|line| line.starts_with(".visible .global") && line.contains(&declarator))?;
    let values = &line[line.find('{')? + 1..line.rfind('}')?];
    values
        .split(',')
        .map(|value| value.trim().parse().ok())
        .collect()
}

/// The bytes of the signature global of `kernel`, or `None` where the module has none.
fn read(module: CUmodule, kernel: &str) -> Result<Option<Vec<u8>>, Error> {
    let symbol = symbol(kernel);
    let name = CString::new(symbol.as_str()).expect("kernel names have no NUL");
    // SAFETY: `module` is a loaded module (the caller's).
    let (address, bytes) = match unsafe { cudarc::driver::result::module::get_global(module, name) }
    {
        Err(error) if error.0 == cudaError_enum::CUDA_ERROR_NOT_FOUND => return Ok(None),
        found => found.doing(format!("finding {symbol} in the module"))?,
    };
    let mut stored = vec![0u8; bytes];
    // SAFETY: `address` holds `bytes` bytes of the loaded module's global.
    unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut stored, address) }
        .doing(format!("reading the module's {symbol}"))?;
    Ok(Some(stored))
}

/// The name of `kernel`'s signature global.
fn symbol(kernel: &str) -> String {
    format!("{SIGNATURE_SYMBOL_PREFIX}{kernel}")
}

/// What the descriptor says of its kernel.
#[derive(Debug)]
struct Expected<'a> {
    kernel: &'a str,
    crate_name: &'a str,
    crate_version: &'a str,
    names: &'a [&'a str],
    codes: &'a [ParamCode],
}

impl Expected<'static> {
    fn of<K: KernelDescriptor>() -> Expected<'static> {
        Expected {
            kernel: K::NAME,
            crate_name: K::CRATE,
            crate_version: K::VERSION,
            names: K::PARAM_NAMES,
            codes: K::PARAM_CODES,
        }
    }
}

/// `Ok` where the module's signature `stored` is what `expected` says; otherwise the first
/// difference: no signature, another crate, or a parameter's type.
fn compare(expected: &Expected<'_>, stored: Option<Signature<'_>>) -> Result<(), ModuleError> {
    let kernel = expected.kernel.to_string();
    let Some(stored) = stored else {
        return Err(ModuleError::SignatureMissing { kernel });
    };
    if (stored.crate_name, stored.crate_version) != (expected.crate_name, expected.crate_version) {
        return Err(ModuleError::KernelFromAnotherCrate {
            kernel,
            descriptor: format!("{}@{}", expected.crate_name, expected.crate_version),
            module: format!("{}@{}", stored.crate_name, stored.crate_version),
        });
    }
    let device: Vec<ParamCode> = stored.codes().collect();
    let params = expected.codes.len().max(device.len());
    let Some(index) = (0..params).find(|&i| expected.codes.get(i) != device.get(i)) else {
        return Ok(());
    };
    Err(ModuleError::ParameterMismatch {
        kernel,
        index,
        name: expected.names.get(index).map(|name| name.to_string()),
        host: expected.codes.get(index).map(ParamCode::to_string),
        device: device.get(index).map(ParamCode::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_abi::{KernelParam, signature_len, write_signature};

    const U8_SLICE: ParamCode = ParamCode::slice_of(<u8 as KernelParam>::CODE);
    const U64_SLICE: ParamCode = ParamCode::slice_of(<u64 as KernelParam>::CODE);
    const U32: ParamCode = <u32 as KernelParam>::CODE;

    /// The descriptor of `fill(data: SymmetricSlice<u8>, value: u32)` of `kernels@0.1.0`.
    fn fill() -> Expected<'static> {
        Expected {
            kernel: "fill",
            crate_name: "kernels",
            crate_version: "0.1.0",
            names: &["data", "value"],
            codes: &[U8_SLICE, U32],
        }
    }

    /// Compares `fill()` with a module signature of `name@version` with `codes`.
    fn against(name: &str, version: &str, codes: &[ParamCode]) -> Result<(), ModuleError> {
        let mut bytes = vec![0u8; signature_len(name, version, codes)];
        write_signature(&mut bytes, name, version, codes);
        compare(&fill(), Signature::decode(&bytes))
    }

    #[test]
    fn the_same_signature_passes() {
        against("kernels", "0.1.0", &[U8_SLICE, U32]).unwrap();
    }

    #[test]
    fn an_element_type_that_differs_between_the_builds_is_named_with_both_types() {
        let refused = against("kernels", "0.1.0", &[U64_SLICE, U32]).unwrap_err();
        let message = refused.to_string();
        assert!(
            matches!(&refused, ModuleError::ParameterMismatch { index: 0, name: Some(name), .. } if name == "data"),
            "{refused:?}"
        );
        for part in [
            "kernel `fill`'s parameter 0 `data`",
            "`SymmetricSlice<u8>` in the host build",
            "`SymmetricSlice<u64>` in the loaded module",
            "cfg(target_arch)",
            "load the module built from this kernel crate",
        ] {
            assert!(message.contains(part), "{message} lacks {part}");
        }
    }

    #[test]
    fn another_crate_or_version_is_refused() {
        let refused = against("kernelz", "0.1.0", &[U32, U8_SLICE]).unwrap_err();
        assert!(matches!(
            refused,
            ModuleError::KernelFromAnotherCrate { .. }
        ));
        let message = refused.to_string();
        assert!(
            message.contains("built from the kernel crate kernelz@0.1.0"),
            "{message}"
        );
        assert!(message.contains("comes from kernels@0.1.0"), "{message}");
        let older = against("kernels", "0.0.9", &[U8_SLICE, U32]).unwrap_err();
        assert!(older.to_string().contains("kernels@0.0.9"), "{older}");
    }

    #[test]
    fn a_parameter_only_one_build_has_is_named() {
        let refused = against("kernels", "0.1.0", &[U8_SLICE]).unwrap_err();
        let message = refused.to_string();
        assert!(
            message.contains("parameter 1 `value` is `u32` in the host build"),
            "{message}"
        );
        assert!(
            message.contains("but no such parameter in the loaded module"),
            "{message}"
        );
    }

    /// PTX declaring `fill`'s signature global with the bytes of `codes`, and another kernel's
    /// whose name starts with `fill`.
    fn ptx_with(codes: &[ParamCode]) -> String {
        let global = |kernel: &str, codes: &[ParamCode]| {
            let mut bytes = vec![0u8; signature_len("kernels", "0.1.0", codes)];
            write_signature(&mut bytes, "kernels", "0.1.0", codes);
            let values: Vec<String> = bytes.iter().map(u8::to_string).collect();
            format!(
                ".visible .global .align 1 .b8 {SIGNATURE_SYMBOL_PREFIX}{kernel}[{}] = {{{}}};",
                bytes.len(),
                values.join(", ")
            )
        };
        format!(
            "//\n.version 8.3\n.target sm_90\n{}\n{}\n.visible .entry fill(\n",
            global("fill_wide", &[U64_SLICE, U32]),
            global("fill", codes)
        )
    }

    /// The descriptor `fill()` describes, for the PTX check.
    struct Fill;
    // SAFETY: a descriptor for the PTX check alone; nothing launches it.
    unsafe impl KernelDescriptor for Fill {
        const NAME: &'static str = "fill";
        type Params = ();
        const CRATE: &'static str = "kernels";
        const VERSION: &'static str = "0.1.0";
        const PARAM_NAMES: &'static [&'static str] = &["data", "value"];
        const PARAM_CODES: &'static [ParamCode] = &[U8_SLICE, U32];
    }

    #[test]
    fn the_ptx_check_reads_the_kernels_own_global() {
        check_ptx_signature::<Fill>(&ptx_with(&[U8_SLICE, U32])).unwrap();
        let refused = check_ptx_signature::<Fill>(&ptx_with(&[U64_SLICE, U32])).unwrap_err();
        assert!(
            matches!(refused, ModuleError::ParameterMismatch { index: 0, .. }),
            "{refused:?}"
        );
        let missing = check_ptx_signature::<Fill>(".visible .entry fill(\n").unwrap_err();
        assert!(matches!(missing, ModuleError::SignatureMissing { .. }));
    }

    #[test]
    fn no_signature_is_refused() {
        let refused = compare(&fill(), None).unwrap_err();
        assert!(matches!(refused, ModuleError::SignatureMissing { .. }));
        assert!(
            refused
                .to_string()
                .contains("nvshmem-builder of this nvshmem-host's release")
        );
        assert!(compare(&fill(), Signature::decode(b"not a signature")).is_err());
    }
}
