//! Human-readable text for NVSHMEM's status codes (NVSHMEM has no error-string function).

use std::ffi::c_int;

use crate::bindings::{
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED, NVSHMEMX_ERROR_GPU_NOT_SELECTED,
    NVSHMEMX_ERROR_INTERNAL, NVSHMEMX_ERROR_INVALID_VALUE, NVSHMEMX_ERROR_NOT_SUPPORTED,
    NVSHMEMX_ERROR_OUT_OF_MEMORY, NVSHMEMX_ERROR_SYMMETRY, NVSHMEMX_SUCCESS,
};

/// What an `NVSHMEMX_*` status code (`enum nvshmemx_status` in `non_abi/nvshmemx_error.h`) means.
///
/// NVSHMEM's `int`-returning host functions return 0 for success and, on failure, usually one of
/// these codes (they also print details to stderr); any other value gets a generic text.
///
/// ```
/// use nvshmem_sys::{NVSHMEMX_ERROR_OUT_OF_MEMORY, status_message};
/// assert_eq!(status_message(0), "success");
/// assert_eq!(status_message(NVSHMEMX_ERROR_OUT_OF_MEMORY as i32), "out of memory");
/// assert!(status_message(-1).contains("not an NVSHMEMX status code"));
/// ```
pub fn status_message(code: c_int) -> &'static str {
    let Ok(code) = u32::try_from(code) else {
        return UNKNOWN;
    };
    match code {
        NVSHMEMX_SUCCESS => "success",
        NVSHMEMX_ERROR_INVALID_VALUE => "invalid value",
        NVSHMEMX_ERROR_OUT_OF_MEMORY => "out of memory",
        NVSHMEMX_ERROR_NOT_SUPPORTED => "not supported",
        NVSHMEMX_ERROR_SYMMETRY => "symmetry error: the PEs disagreed on a collective call",
        NVSHMEMX_ERROR_GPU_NOT_SELECTED => {
            "no GPU selected: make a CUDA context current before calling NVSHMEM"
        }
        NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED => "collective kernel launch failed",
        NVSHMEMX_ERROR_INTERNAL => "internal NVSHMEM error",
        _ => UNKNOWN,
    }
}

const UNKNOWN: &str = "unknown error (not an NVSHMEMX status code; see NVSHMEM's stderr output)";
