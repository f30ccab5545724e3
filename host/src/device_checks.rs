//! The settings of `nvshmem-gpu`'s device checks in a loaded module: the time limit of every
//! blocking device call (`NVSHMEMRS_DEVICE_TIMEOUT_S`) and the symmetric scratch of the barriers'
//! and collectives' handshakes. Only modules built with the `checks` feature (nvshmem-builder's
//! default for debug builds) define the settings global; others are left as they are.

use crate::environment;
use crate::error::DriverErrorContext as _;
use crate::{Error, ModuleError, Nvshmem, SymmetricBuffer};
use cudarc::driver::sys::CUmodule;
use nvshmem_abi::{DEVICE_CHECKS_SYMBOL, DeviceChecks};
use std::ffi::CString;

/// Team handles with a handshake slot: NVSHMEM's default team limit (`NVSHMEM_MAX_TEAMS`); a team
/// with a larger handle skips the handshake.
const SLOTS: u32 = 32;

/// Fills the module's settings when its PTX defines them: the limit from the environment, and a
/// zeroed symmetric scratch for the handshakes, which the module must keep until it is unloaded.
/// Collective (the scratch is a symmetric allocation) when the module has the settings.
pub(crate) fn set_up<'nv>(
    nvshmem: &'nv Nvshmem,
    module: CUmodule,
    ptx: &str,
) -> Result<Option<SymmetricBuffer<'nv, u64>>, Error> {
    if !ptx.contains(DEVICE_CHECKS_SYMBOL) {
        return Ok(None);
    }
    // Checked at initialisation already; read again in case the program changed it since.
    let timeout_ns = environment::device_timeout_ns(|name| std::env::var_os(name))?;
    let name = CString::new(DEVICE_CHECKS_SYMBOL).expect("no NUL in the symbol name");
    // SAFETY: `module` is a loaded module (the caller's).
    let (address, bytes) = unsafe { cudarc::driver::result::module::get_global(module, name) }
        .doing(format!("finding {DEVICE_CHECKS_SYMBOL} in the module"))?;
    if bytes != size_of::<DeviceChecks>() {
        return Err(ModuleError::GlobalLayout {
            symbol: DEVICE_CHECKS_SYMBOL,
            bytes,
            expected: size_of::<DeviceChecks>(),
        }
        .into());
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
