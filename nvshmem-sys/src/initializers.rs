//! Rust versions of the C initializer macros for NVSHMEM's versioned structs.
//!
//! NVSHMEM's ABI-stable structs start with a version word, which the library checks:
//! `(major << 16) + sizeof(struct)`, with `major` the struct's layout version (1 for unique IDs, 2
//! for the team configuration). A struct whose version word does not match is rejected, so build
//! these structs with the functions here, never from zeroes.
//!
//! The init attributes have two layouts of the same size. NVSHMEM 3.8 added layout 2, whose
//! arguments carry a CUDA device ID (`-1`: the current device) where layout 1 had its first four
//! reserved bytes; 3.8 accepts both, older releases know only layout 1. So the attributes are built
//! for the library actually loaded: [`init_attr_initializer_for`] its release.

use std::ffi::c_int;
use std::mem::size_of;
use std::ptr::null_mut;

use nvshmem_locate::Version;

use crate::bindings::{
    INIT_ARGS_SCALAR_INVALID, INIT_ARGS_V2_PADDING, TEAM_CONFIG_SCALAR_INVALID,
    TEAM_CONFIG_V2_PADDING, UNIQUEID_ARGS_INVALID, UNIQUEID_PADDING, nvshmem_team_config_t,
    nvshmemx_init_args_t, nvshmemx_init_attr_t, nvshmemx_uniqueid_args_t, nvshmemx_uniqueid_t,
};

/// The version word of a struct of layout version `major` and `size` bytes:
/// `(major << 16) + size`, as the headers' initializer macros compute it.
///
/// ```
/// assert_eq!(nvshmem_sys::struct_version(1, 128), 0x1_0080);
/// ```
pub const fn struct_version(major: u32, size: usize) -> c_int {
    ((major << 16) as usize + size) as c_int
}

/// The version word of [`nvshmemx_uniqueid_t`]: `(1 << 16) + 128` = 65664.
pub const UNIQUEID_VERSION: c_int = struct_version(1, size_of::<nvshmemx_uniqueid_t>());

/// The version word of [`nvshmemx_uniqueid_args_t`]: `(1 << 16) + 24` = 65560.
pub const UNIQUEID_ARGS_VERSION: c_int = struct_version(1, size_of::<nvshmemx_uniqueid_args_t>());

/// The version word of [`nvshmemx_init_args_t`] in layout 1: `(1 << 16) + 128` = 65664.
pub const INIT_ARGS_VERSION: c_int = struct_version(1, size_of::<nvshmemx_init_args_t>());

/// The version word of [`nvshmemx_init_attr_t`] in layout 1: `(1 << 16) + 144` = 65680.
pub const INIT_ATTR_VERSION: c_int = struct_version(1, size_of::<nvshmemx_init_attr_t>());

/// The version word of [`nvshmemx_init_args_t`] in layout 2 (NVSHMEM 3.8 and later, with
/// `cuda_device_id`): `(2 << 16) + 128` = 131200.
pub const INIT_ARGS_V2_VERSION: c_int = struct_version(2, size_of::<nvshmemx_init_args_t>());

/// The version word of [`nvshmemx_init_attr_t`] in layout 2 (NVSHMEM 3.8 and later):
/// `(2 << 16) + 144` = 131216.
pub const INIT_ATTR_V2_VERSION: c_int = struct_version(2, size_of::<nvshmemx_init_attr_t>());

/// The first release whose host library accepts the init attributes' layout 2.
pub const INIT_ATTR_V2_SINCE: Version = Version {
    major: 3,
    minor: 8,
    patch: 0,
};

/// The version word of [`nvshmem_team_config_t`] (layout version 2): `(2 << 16) + 64` = 131136.
pub const TEAM_CONFIG_VERSION: c_int = struct_version(2, size_of::<nvshmem_team_config_t>());

/// A unique ID before `nvshmemx_get_uniqueid` fills it in: C's `NVSHMEMX_UNIQUEID_INITIALIZER`.
///
/// The version word is [`UNIQUEID_VERSION`]; the 124 internal bytes are zero.
///
/// ```
/// let id = nvshmem_sys::uniqueid_initializer();
/// assert_eq!(id.version, (1 << 16) + 128);
/// assert!(id.internal.iter().all(|&byte| byte == 0));
/// ```
pub const fn uniqueid_initializer() -> nvshmemx_uniqueid_t {
    nvshmemx_uniqueid_t {
        version: UNIQUEID_VERSION,
        internal: [0; UNIQUEID_PADDING as usize],
    }
}

/// Unique-ID arguments with nothing set: C's `NVSHMEMX_UNIQUEID_ARGS_INITIALIZER`.
///
/// The version word is [`UNIQUEID_ARGS_VERSION`], `id` is null, `myrank` and `nranks` are -1
/// (`UNIQUEID_ARGS_INVALID`). `nvshmemx_set_attr_uniqueid_args` fills these in.
pub const fn uniqueid_args_initializer() -> nvshmemx_uniqueid_args_t {
    nvshmemx_uniqueid_args_t {
        version: UNIQUEID_ARGS_VERSION,
        id: null_mut(),
        myrank: UNIQUEID_ARGS_INVALID,
        nranks: UNIQUEID_ARGS_INVALID,
    }
}

/// Init arguments in layout 1 with nothing set: C's `NVSHMEMX_INIT_ARGS_INITIALIZER`.
///
/// The version word is [`INIT_ARGS_VERSION`], `uid_args` is [`uniqueid_args_initializer`], and
/// the rest is zero (`cuda_device_id` is layout 1's first four reserved bytes).
pub const fn init_args_initializer() -> nvshmemx_init_args_t {
    nvshmemx_init_args_t {
        version: INIT_ARGS_VERSION,
        uid_args: uniqueid_args_initializer(),
        cuda_device_id: 0,
        content: [0; INIT_ARGS_V2_PADDING as usize],
    }
}

/// Init arguments in layout 2 with nothing set: C's `NVSHMEMX_INIT_ARGS_V2_INITIALIZER`.
///
/// As [`init_args_initializer`], but the version word is [`INIT_ARGS_V2_VERSION`] and
/// `cuda_device_id` is -1 (`INIT_ARGS_SCALAR_INVALID`: use the current CUDA device).
pub const fn init_args_v2_initializer() -> nvshmemx_init_args_t {
    nvshmemx_init_args_t {
        version: INIT_ARGS_V2_VERSION,
        cuda_device_id: INIT_ARGS_SCALAR_INVALID,
        ..init_args_initializer()
    }
}

/// Init attributes in layout 2 with nothing set: C's `NVSHMEMX_INIT_ATTR_INITIALIZER` (NVSHMEM
/// 3.8's). Only NVSHMEM 3.8 and later accept it: build the attributes with
/// [`init_attr_initializer_for`] the loaded library's release.
///
/// The version word is [`INIT_ATTR_V2_VERSION`], `mpi_comm` is null, and `args` is
/// [`init_args_v2_initializer`].
pub const fn init_attr_initializer() -> nvshmemx_init_attr_t {
    nvshmemx_init_attr_t {
        version: INIT_ATTR_V2_VERSION,
        mpi_comm: null_mut(),
        args: init_args_v2_initializer(),
    }
}

/// Init attributes in layout 1 with nothing set: C's `NVSHMEMX_INIT_ATTR_V1_INITIALIZER`, the
/// layout every NVSHMEM 3 release accepts.
///
/// The version word is [`INIT_ATTR_VERSION`], `mpi_comm` is null, and `args` is
/// [`init_args_initializer`].
pub const fn init_attr_v1_initializer() -> nvshmemx_init_attr_t {
    nvshmemx_init_attr_t {
        version: INIT_ATTR_VERSION,
        mpi_comm: null_mut(),
        args: init_args_initializer(),
    }
}

/// Init attributes with nothing set, in the layout that a host library of `release` knows:
/// layout 2 from [`INIT_ATTR_V2_SINCE`] on ([`init_attr_initializer`]), layout 1 before
/// ([`init_attr_v1_initializer`]). Start every `nvshmemx_init_attr_t` from this, then set it up
/// with `nvshmemx_set_attr_uniqueid_args` (or `nvshmemx_set_attr_mpi_comm_args`) and pass it to
/// `nvshmemx_hostlib_init_attr`.
///
/// ```no_run
/// use nvshmem_sys::{NVSHMEMX_INIT_WITH_UNIQUEID, init_attr_initializer_for, library, uniqueid_initializer};
///
/// let lib = library()?;
/// let (my_rank, n_ranks) = (0, 1);
/// let (mut major, mut minor, mut patch) = (0, 0, 0);
/// let mut id = uniqueid_initializer();
/// // SAFETY: `id` and `attr` are valid, initialized structs that outlive the calls; with a single
/// // rank, rank 0 makes the unique ID itself (with more, rank 0 sends it to the others first).
/// let status = unsafe {
///     lib.nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch);
///     let release = nvshmem_locate::Version { major: major as u32, minor: minor as u32, patch: patch as u32 };
///     let mut attr = init_attr_initializer_for(release);
///     lib.nvshmemx_get_uniqueid(&mut id);
///     lib.nvshmemx_set_attr_uniqueid_args(my_rank, n_ranks, &id, &mut attr);
///     lib.nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID as u32, &mut attr)
/// };
/// assert_eq!(status, 0, "{}", nvshmem_sys::status_message(status));
/// # Ok::<(), nvshmem_sys::LoadError>(())
/// ```
///
/// ```
/// use nvshmem_locate::Version;
/// let old = nvshmem_sys::init_attr_initializer_for(Version { major: 3, minor: 4, patch: 5 });
/// let new = nvshmem_sys::init_attr_initializer_for(Version { major: 3, minor: 8, patch: 0 });
/// assert_eq!((old.version, old.args.version), (65680, 65664));
/// assert_eq!((new.version, new.args.version, new.args.cuda_device_id), (131216, 131200, -1));
/// ```
pub fn init_attr_initializer_for(release: Version) -> nvshmemx_init_attr_t {
    if release >= INIT_ATTR_V2_SINCE {
        init_attr_initializer()
    } else {
        init_attr_v1_initializer()
    }
}

/// Sets the three version words of `attr` to layout 1's, leaving the rest alone: C's
/// `nvshmemx_init_init_attr_ver_only(attr)`, which the header-inline `nvshmemx_init_attr` applies
/// to an argument whose version word is neither layout's before initializing.
///
/// ```
/// // SAFETY: every field of these structs (integers, raw pointers, byte arrays) may be zero.
/// let mut attr: nvshmem_sys::nvshmemx_init_attr_t = unsafe { std::mem::zeroed() };
/// nvshmem_sys::set_init_attr_versions(&mut attr);
/// assert_eq!(attr.version, nvshmem_sys::INIT_ATTR_VERSION);
/// assert_eq!(attr.args.uid_args.myrank, 0);
/// ```
pub const fn set_init_attr_versions(attr: &mut nvshmemx_init_attr_t) {
    attr.version = INIT_ATTR_VERSION;
    attr.args.version = INIT_ARGS_VERSION;
    attr.args.uid_args.version = UNIQUEID_ARGS_VERSION;
}

/// A team configuration with nothing set: C's `NVSHMEM_TEAM_CONFIG_INITIALIZER`.
///
/// The version word is [`TEAM_CONFIG_VERSION`] (layout version 2), `num_contexts` is -1
/// (`TEAM_CONFIG_SCALAR_INVALID`), `uniqueid` is all ones (`TEAM_ULSCALAR_INVALID`,
/// `0xFFFFFFFFFFFFFFFF`), and the 48 reserved bytes are zero.
pub const fn team_config_initializer() -> nvshmem_team_config_t {
    nvshmem_team_config_t {
        version: TEAM_CONFIG_VERSION,
        num_contexts: TEAM_CONFIG_SCALAR_INVALID,
        uniqueid: u64::MAX,
        padding: [0; TEAM_CONFIG_V2_PADDING as usize],
    }
}

/// [`uniqueid_initializer`].
impl Default for nvshmemx_uniqueid_t {
    fn default() -> Self {
        uniqueid_initializer()
    }
}

/// [`uniqueid_args_initializer`].
impl Default for nvshmemx_uniqueid_args_t {
    fn default() -> Self {
        uniqueid_args_initializer()
    }
}

/// [`init_args_initializer`].
impl Default for nvshmemx_init_args_t {
    fn default() -> Self {
        init_args_initializer()
    }
}

/// [`init_attr_initializer`].
impl Default for nvshmemx_init_attr_t {
    fn default() -> Self {
        init_attr_initializer()
    }
}

/// [`team_config_initializer`].
impl Default for nvshmem_team_config_t {
    fn default() -> Self {
        team_config_initializer()
    }
}
