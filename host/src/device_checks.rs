//! The settings of `nvshmem-gpu`'s device checks in a loaded module: the time limit of every
//! blocking device call (`NVSHMEMRS_DEVICE_TIMEOUT_S`) and the symmetric scratch of the barriers'
//! and collectives' handshakes. Only modules built with the `checks` feature (nvshmem-builder's
//! default for debug builds) define the settings global; others are left as they are.

use crate::environment::DEVICE_TIMEOUT;
use crate::error::CudaContext as _;
use crate::{Error, Nvshmem, SymmetricBuffer};
use cudarc::driver::sys::CUmodule;
use nvshmem_gpu::{DEFAULT_TIMEOUT_NS, DEVICE_CHECKS_SYMBOL, DeviceChecks};
use std::ffi::{CString, OsString};

/// Team handles with a handshake slot: NVSHMEM's default team limit (`NVSHMEM_MAX_TEAMS`); a team
/// with a larger handle skips the handshake.
const SLOTS: u32 = 32;

/// The limit in nanoseconds that `lookup` sets through [`DEVICE_TIMEOUT`] (use
/// `|name| std::env::var_os(name)` for the process's environment), or the device's default.
pub fn timeout_ns(lookup: impl Fn(&str) -> Option<OsString>) -> Result<u64, Error> {
    let Some(value) = lookup(DEVICE_TIMEOUT) else {
        return Ok(DEFAULT_TIMEOUT_NS);
    };
    let bad = || Error::DeviceTimeout {
        value: value.to_string_lossy().into_owned(),
    };
    let seconds: f64 = value.to_str().ok_or_else(bad)?.parse().map_err(|_| bad())?;
    // Up to a year: beyond that a limit is no limit, and the nanoseconds stay far inside u64.
    if !(seconds > 0.0 && seconds <= 365.0 * 86_400.0) {
        return Err(bad());
    }
    Ok((seconds * 1e9).ceil() as u64)
}

/// Fills the module's settings when its PTX defines them: the limit from the environment, and a
/// zeroed symmetric scratch for the handshakes, which the module must keep until it is unloaded.
/// Collective (the scratch is a symmetric allocation) when the module has the settings.
pub(crate) fn set_up<'nv>(
    nvshmem: &'nv Nvshmem,
    module: CUmodule,
    ptx: &str,
) -> Result<Option<SymmetricBuffer<'nv, u64>>, Error> {
    let timeout_ns = timeout_ns(|name| std::env::var_os(name))?;
    if !ptx.contains(DEVICE_CHECKS_SYMBOL) {
        return Ok(None);
    }
    let name = CString::new(DEVICE_CHECKS_SYMBOL).expect("no NUL in the symbol name");
    // SAFETY: `module` is a loaded module (the caller's).
    let (address, bytes) = unsafe { cudarc::driver::result::module::get_global(module, name) }
        .doing(format!("finding {DEVICE_CHECKS_SYMBOL} in the module"))?;
    if bytes != size_of::<DeviceChecks>() {
        return Err(Error::DeviceChecksLayout { bytes });
    }
    let words = SLOTS as usize * 2 * nvshmem.n_pes() as usize;
    let scratch = nvshmem.alloc_zeroed::<u64>(words)?;
    let settings = DeviceChecks {
        timeout_ns,
        scratch: scratch.as_symmetric_ptr().as_ptr(),
        slots: SLOTS,
        reserved: 0,
    };
    // SAFETY: `address` holds a `DeviceChecks` (its size checked above); no kernel of the module
    // has run yet.
    unsafe { cudarc::driver::result::memcpy_htod_sync(address, &[settings]) }
        .doing(format!("writing the module's {DEVICE_CHECKS_SYMBOL}"))?;
    Ok(Some(scratch))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> impl Fn(&str) -> Option<OsString> {
        let value = OsString::from(value);
        move |asked: &str| (asked == DEVICE_TIMEOUT).then(|| value.clone())
    }

    #[test]
    fn the_limit_is_read_in_seconds_and_defaults_to_the_devices() {
        assert_eq!(timeout_ns(|_| None).unwrap(), DEFAULT_TIMEOUT_NS);
        assert_eq!(timeout_ns(with("3")).unwrap(), 3_000_000_000);
        assert_eq!(timeout_ns(with("0.5")).unwrap(), 500_000_000);
        assert_eq!(timeout_ns(with("1e-9")).unwrap(), 1);
    }

    #[test]
    fn a_bad_limit_names_the_variable_its_value_and_the_form() {
        for value in ["0", "-3", "soon", "", "inf", "NaN", "1e12", " 3"] {
            let message = timeout_ns(with(value)).unwrap_err().to_string();
            for part in [
                &format!("{DEVICE_TIMEOUT}={value:?}"),
                "seconds above 0",
                "unset it",
            ] {
                assert!(message.contains(part), "{value}: {message}");
            }
        }
    }
}
