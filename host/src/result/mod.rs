//! Thin NVSHMEM calls that return `Result` (cudarc's `result` layer, for NVSHMEM).
//!
//! Each function is one NVSHMEM host call with its status turned into [`Error`]; the safe types in
//! the other modules are built on these, and no other module calls NVSHMEM. This module holds
//! initialisation, memory and modules; [`team`] and [`stream`] the calls on teams and on streams.

pub mod stream;
pub mod team;

use crate::Error;
use nvshmem_sys::NvshmemHost;
use std::ffi::c_void;

/// A unique id's bytes, as `nvshmemx_get_uniqueid` fills them.
pub type UniqueIdBytes = [u8; std::mem::size_of::<nvshmem_sys::nvshmemx_uniqueid_t>()];

pub(crate) fn status(call: &'static str, status: i32, hint: &'static str) -> Result<(), Error> {
    if status == 0 {
        Ok(())
    } else {
        Err(Error::Nvshmem { call, status, hint })
    }
}

/// `nvshmemx_get_uniqueid`: a fresh unique id (PE 0 of a unique-id bootstrap makes it).
pub fn get_unique_id(lib: &NvshmemHost) -> Result<UniqueIdBytes, Error> {
    let mut id = nvshmem_sys::uniqueid_initializer();
    // SAFETY: `id` is a valid, initialised `nvshmemx_uniqueid_t` that the call fills in.
    let code = unsafe { lib.nvshmemx_get_uniqueid(&mut id) };
    status(
        "nvshmemx_get_uniqueid",
        code,
        "the unique-id bootstrap plugin (nvshmem_bootstrap_uid.so.3) must sit beside libnvshmem_host.so.3; set NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo if no network interface is usable",
    )?;
    let mut bytes = [0u8; std::mem::size_of::<nvshmem_sys::nvshmemx_uniqueid_t>()];
    // SAFETY: `nvshmemx_uniqueid_t` is plain data of exactly `bytes.len()` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (&id as *const nvshmem_sys::nvshmemx_uniqueid_t).cast::<u8>(),
            bytes.as_mut_ptr(),
            bytes.len(),
        )
    };
    Ok(bytes)
}

/// `nvshmemx_set_attr_uniqueid_args` + `nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID)`.
pub fn init_with_unique_id(
    lib: &NvshmemHost,
    pe: i32,
    n_pes: i32,
    id: &UniqueIdBytes,
) -> Result<(), Error> {
    let mut unique_id = nvshmem_sys::uniqueid_initializer();
    // SAFETY: `unique_id` is plain data of exactly `id.len()` bytes; any bytes PE 0's id had are valid.
    unsafe {
        std::ptr::copy_nonoverlapping(
            id.as_ptr(),
            (&mut unique_id as *mut nvshmem_sys::nvshmemx_uniqueid_t).cast::<u8>(),
            id.len(),
        )
    };
    let mut attr = nvshmem_sys::init_attr_initializer_for(host_version(lib));
    // SAFETY: both structs are initialised with the C initializers' version words (the layout the
    // loaded release knows); NVSHMEM copies
    // what it needs from `unique_id` into `attr`.
    let code = unsafe { lib.nvshmemx_set_attr_uniqueid_args(pe, n_pes, &unique_id, &mut attr) };
    status(
        "nvshmemx_set_attr_uniqueid_args",
        code,
        "the PE number must be in 0..n_pes",
    )?;
    // SAFETY: `attr` was filled in by `nvshmemx_set_attr_uniqueid_args` just above; a CUDA context is
    // current on this thread (the caller bound it).
    let code = unsafe {
        lib.nvshmemx_hostlib_init_attr(nvshmem_sys::NVSHMEMX_INIT_WITH_UNIQUEID as u32, &mut attr)
    };
    status(
        "nvshmemx_hostlib_init_attr",
        code,
        "run with NVSHMEM_DEBUG=INFO for NVSHMEM's own diagnostics; check that every PE started and that NVSHMEM_REMOTE_TRANSPORT suits this machine (none on one node)",
    )
}

/// `nvshmemx_set_attr_mpi_comm_args` + `nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM)`:
/// NVSHMEM's MPI plugin bootstraps over `communicator`'s ranks.
#[cfg(feature = "mpi")]
pub fn init_with_mpi_communicator(
    lib: &NvshmemHost,
    communicator: mpi::ffi::MPI_Comm,
) -> Result<(), Error> {
    let mut communicator = communicator;
    let mut attr = nvshmem_sys::init_attr_initializer_for(host_version(lib));
    // SAFETY: `attr` carries the C initializer's version word for the loaded release; NVSHMEM keeps the address of
    // `communicator` (an `MPI_Comm *`, as its MPI plugin reads it), which outlives the init below.
    let code = unsafe {
        lib.nvshmemx_set_attr_mpi_comm_args(
            (&mut communicator as *mut mpi::ffi::MPI_Comm).cast::<c_void>(),
            &mut attr,
        )
    };
    status(
        "nvshmemx_set_attr_mpi_comm_args",
        code,
        "NVSHMEM refused the communicator: pass an intra-communicator that every PE is part of",
    )?;
    // SAFETY: `attr` was filled in just above and `communicator` is still alive; a CUDA context is
    // current on this thread (the caller bound it).
    let code = unsafe {
        lib.nvshmemx_hostlib_init_attr(nvshmem_sys::NVSHMEMX_INIT_WITH_MPI_COMM as u32, &mut attr)
    };
    status(
        "nvshmemx_hostlib_init_attr",
        code,
        "NVSHMEM could not bootstrap over the MPI communicator: every rank of it must call init_with_mpi, on Open MPI (NVSHMEM's MPI plugin is built against libmpi.so.40); run with NVSHMEM_DEBUG=INFO",
    )
}

/// `nvshmemx_hostlib_init_attr` with NVSHMEM's bootstrap chosen by its environment variables.
pub fn init_from_environment(lib: &NvshmemHost) -> Result<(), Error> {
    let mut attr = nvshmem_sys::init_attr_initializer_for(host_version(lib));
    // SAFETY: `attr` carries the C initializer's version word for the loaded release; a CUDA
    // context is current.
    let code = unsafe { lib.nvshmemx_hostlib_init_attr(0, &mut attr) };
    status(
        "nvshmemx_hostlib_init_attr",
        code,
        "NVSHMEM could not bootstrap through the process manager: check NVSHMEM_BOOTSTRAP and NVSHMEM_BOOTSTRAP_PMI (PMI, PMI-2 or PMIX, matching how the job was started), and run with NVSHMEM_DEBUG=INFO",
    )
}

/// `nvshmemx_hostlib_finalize`.
pub fn finalize(lib: &NvshmemHost) {
    // SAFETY: called once, after a successful init, when nothing uses NVSHMEM any more.
    unsafe { lib.nvshmemx_hostlib_finalize() }
}

/// `nvshmem_my_pe` and `nvshmem_n_pes`.
pub fn pe_and_count(lib: &NvshmemHost) -> (i32, i32) {
    // SAFETY: NVSHMEM is initialised (callers hold the `Nvshmem` handle).
    unsafe { (lib.nvshmem_my_pe(), lib.nvshmem_n_pes()) }
}

/// `nvshmemx_init_status`: how far NVSHMEM got (`NVSHMEM_STATUS_*`). Its initialisation only
/// bootstraps when it cannot set up a transport to every PE, and still returns success.
pub fn init_status(lib: &NvshmemHost) -> i32 {
    // SAFETY: the call only reads NVSHMEM's state; it is valid before and after initialisation.
    unsafe { lib.nvshmemx_init_status() }
}

/// `nvshmemx_vendor_get_version_info`: the host library's release.
pub fn host_version(lib: &NvshmemHost) -> nvshmem_locate::Version {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: three valid out-pointers; the call has no other precondition.
    unsafe { lib.nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch) };
    nvshmem_locate::Version {
        major: major as u32,
        minor: minor as u32,
        patch: patch as u32,
    }
}

/// How a symmetric allocation is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// `nvshmem_malloc`: contents undefined.
    Uninitialized,
    /// `nvshmem_calloc`: zeroed.
    Zeroed,
    /// `nvshmem_align`: aligned to this many bytes (a power of two).
    Aligned(usize),
}

/// A symmetric allocation of `bytes` bytes; collective.
pub fn malloc(lib: &NvshmemHost, bytes: usize, how: Allocation) -> Result<*mut c_void, Error> {
    // SAFETY: NVSHMEM is initialised; the caller makes every PE allocate the same sizes in the same
    // order (the symmetric-heap contract).
    let ptr = unsafe {
        match how {
            Allocation::Uninitialized => lib.nvshmem_malloc(bytes),
            // One element of `bytes`: NVSHMEM grows its heap by the element size of a calloc,
            // not by the whole request, so `bytes` elements of one byte failed once the request
            // passed the heap's free room plus one granule, far below the heap's cap.
            Allocation::Zeroed => lib.nvshmem_calloc(1, bytes),
            Allocation::Aligned(alignment) => lib.nvshmem_align(alignment, bytes),
        }
    };
    if ptr.is_null() {
        Err(crate::MemoryError::HeapExhausted {
            bytes,
            // The raw layer does not know the caller's buffers; the safe layer fills them in.
            in_use: 0,
            bound: crate::environment::heap_bound(|name| std::env::var_os(name)),
        }
        .into())
    } else {
        Ok(ptr)
    }
}

/// `nvshmem_free`; collective.
///
/// # Safety
/// `ptr` came from [`malloc`] and is not used afterwards; every PE frees in the same order.
pub unsafe fn free(lib: &NvshmemHost, ptr: *mut c_void) {
    // SAFETY: the caller's contract above.
    unsafe { lib.nvshmem_free(ptr) }
}

/// `nvshmem_barrier_all` from the host: completes outstanding operations and waits for every PE.
pub fn barrier_all(lib: &NvshmemHost) {
    // SAFETY: NVSHMEM is initialised; every PE calls it (documented on the safe wrapper).
    unsafe { lib.nvshmem_barrier_all() }
}

/// `nvshmemx_cumodule_init`: points the module's `nvshmemi_device_state_d` at this PE's state.
///
/// # Safety
/// `module` is a loaded module linked with NVSHMEM's device library, in the current context.
pub unsafe fn cumodule_init(
    lib: &NvshmemHost,
    module: cudarc::driver::sys::CUmodule,
) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_cumodule_init(module.cast()) };
    status(
        "nvshmemx_cumodule_init",
        code,
        "the module must be linked with NVSHMEM's device library (nvshmem-builder does this) and keep nvshmemi_device_state_d visible",
    )
}

/// `nvshmemx_cumodule_finalize`.
///
/// # Safety
/// `module` was initialised with [`cumodule_init`] and no kernel of it runs any more.
pub unsafe fn cumodule_finalize(
    lib: &NvshmemHost,
    module: cudarc::driver::sys::CUmodule,
) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let code = unsafe { lib.nvshmemx_cumodule_finalize(module.cast()) };
    status(
        "nvshmemx_cumodule_finalize",
        code,
        "finalize modules before NVSHMEM itself",
    )
}

/// An error naming `symbol` and the loaded release unless the library has the symbol (`loaded`:
/// the binding's field, an `Err` where the library lacks it).
pub(crate) fn require<F>(
    lib: &NvshmemHost,
    symbol: &'static str,
    loaded: &Result<F, libloading::Error>,
) -> Result<(), Error> {
    match loaded {
        Ok(_) => Ok(()),
        Err(_) => Err(Error::MissingSymbol {
            symbol,
            version: host_version(lib),
        }),
    }
}

/// `nvshmemx_buffer_register`: makes `bytes` of device memory at `address` usable as the local side
/// of NVSHMEM's operations.
///
/// # Safety
/// `address` is a live device allocation of NVSHMEM's context, at least `bytes` long, that stays
/// allocated until [`buffer_unregister`].
pub unsafe fn buffer_register(
    lib: &NvshmemHost,
    address: *mut c_void,
    bytes: usize,
) -> Result<(), Error> {
    require(
        lib,
        "nvshmemx_buffer_register",
        &lib.nvshmemx_buffer_register,
    )?;
    require(
        lib,
        "nvshmemx_buffer_unregister",
        &lib.nvshmemx_buffer_unregister,
    )?;
    // SAFETY: NVSHMEM is initialised; the caller's contract above.
    let code = unsafe { lib.nvshmemx_buffer_register(address, bytes) };
    status(
        "nvshmemx_buffer_register",
        code,
        "the memory must be device memory of NVSHMEM's context, not already registered nor part of the symmetric heap",
    )
}

/// `nvshmemx_buffer_unregister`.
///
/// # Safety
/// No NVSHMEM operation on the memory is pending or runs afterwards.
pub unsafe fn buffer_unregister(lib: &NvshmemHost, address: *mut c_void) -> Result<(), Error> {
    require(
        lib,
        "nvshmemx_buffer_unregister",
        &lib.nvshmemx_buffer_unregister,
    )?;
    // SAFETY: NVSHMEM is initialised; the caller's contract above (an address NVSHMEM does not know
    // is an error status).
    let code = unsafe { lib.nvshmemx_buffer_unregister(address) };
    status(
        "nvshmemx_buffer_unregister",
        code,
        "unregister each registered address once, before NVSHMEM is finalised",
    )
}

/// `nvshmem_ptr`: the address of symmetric `address` on PE `pe` that this PE's GPU can load from
/// and store to, or `None` where it cannot (another node, no peer access).
///
/// # Safety
/// `address` lies in the symmetric heap and `pe` is in `0..n_pes`.
pub unsafe fn peer_ptr(lib: &NvshmemHost, address: *const c_void, pe: i32) -> Option<*mut c_void> {
    // SAFETY: NVSHMEM is initialised; the caller's contract above.
    let ptr = unsafe { lib.nvshmem_ptr(address, pe) };
    (!ptr.is_null()).then_some(ptr)
}

/// `nvshmemx_mc_ptr`: the multicast address of symmetric `address` for `team`, or `None` where the
/// platform has no multicast (NVLink SHARP off or absent).
///
/// # Safety
/// `address` lies in the symmetric heap and `team` exists with this PE in it.
pub unsafe fn multicast_ptr(
    lib: &NvshmemHost,
    team: i32,
    address: *const c_void,
) -> Result<Option<*mut c_void>, Error> {
    require(lib, "nvshmemx_mc_ptr", &lib.nvshmemx_mc_ptr)?;
    // SAFETY: NVSHMEM is initialised; the caller's contract above.
    let ptr = unsafe { lib.nvshmemx_mc_ptr(team, address) };
    Ok((!ptr.is_null()).then_some(ptr))
}

#[cfg(test)]
mod tests {
    /// The files of `folder`, recursively.
    fn sources(folder: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(folder).expect("a readable source folder") {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                files.extend(sources(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    #[test]
    fn only_this_layer_calls_nvshmem() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let result = src.join("result");
        // A call through the loaded library (`lib.nvshmem_…`, `lib().nvshmemx_…`, across lines) or
        // one of its functions taken as a value (`NvshmemHost::nvshmem…`).
        let calls = ["lib.nvshmem", "lib().nvshmem", "NvshmemHost::nvshmem"];
        let outside: Vec<String> = sources(&src)
            .into_iter()
            .filter(|path| !path.starts_with(&result))
            .filter_map(|path| {
                let text = std::fs::read_to_string(&path).expect("a readable source");
                let code: String = text.split_whitespace().collect();
                let found: Vec<&str> = calls.into_iter().filter(|c| code.contains(c)).collect();
                (!found.is_empty()).then(|| format!("{}: {}", path.display(), found.join(", ")))
            })
            .collect();
        assert!(
            outside.is_empty(),
            "NVSHMEM called outside `result`:\n{}",
            outside.join("\n")
        );
    }
}
