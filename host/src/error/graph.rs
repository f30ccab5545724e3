//! What can go wrong in a graph capture beyond CUDA's own errors.

use cudarc::driver::sys::CUresult;
use std::fmt;

/// A capture into a CUDA graph cannot be made ([`crate::Nvshmem::capture`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum GraphError {
    /// A graph capture was asked of the legacy default stream, which CUDA cannot capture.
    CaptureOnLegacyStream,
    /// A capture ended without a graph.
    EmptyCapture,
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::CaptureOnLegacyStream => write!(
                f,
                "CUDA cannot capture the legacy default stream (the handle's own, \
                 Nvshmem::stream) into a graph; capture a stream of NVSHMEM's context made with \
                 nvshmem.context().new_stream(), and enqueue the work there (Nvshmem::on)"
            ),
            GraphError::EmptyCapture => write!(
                f,
                "the capture ended without a graph; enqueue the work on the stream passed to \
                 Nvshmem::capture, through the OnStream it hands the body"
            ),
        }
    }
}

impl std::error::Error for GraphError {}

/// What went wrong in a graph capture ([`crate::Nvshmem::capture`]) that fails with `code`.
pub(super) fn inside_capture(code: CUresult) -> Option<&'static str> {
    use CUresult::*;
    match code {
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED | CUDA_ERROR_STREAM_CAPTURE_INVALIDATED => Some(
            "a call inside a graph capture cannot be captured (a host-synchronising call: \
             synchronize, a copy to or from host memory, an allocation), and it spoils the \
             capture; move it before or after Nvshmem::capture",
        ),
        CUDA_ERROR_STREAM_CAPTURE_IMPLICIT => Some(
            "work on the legacy default stream (the handle's own, used by Kernel::launch and the \
             methods of Nvshmem) joined a stream being captured; enqueue it through the OnStream \
             that Nvshmem::capture hands the body",
        ),
        CUDA_ERROR_STREAM_CAPTURE_ISOLATION | CUDA_ERROR_STREAM_CAPTURE_UNJOINED => Some(
            "captured work depends on, or forked to, a stream outside the capture; keep the \
             captured work on the captured stream",
        ),
        CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD => Some(
            "a capture must end on the thread that began it; keep Nvshmem::capture's body on \
             its thread",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spoiled_capture_names_the_call_to_move() {
        // The driver's own text of the error needs the driver; the hint beside it does not.
        for code in [
            CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
        ] {
            let hint = inside_capture(code).unwrap();
            assert!(
                hint.contains("move it before or after Nvshmem::capture"),
                "{hint}"
            );
        }
        let hint = inside_capture(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT).unwrap();
        assert!(hint.contains("OnStream"), "{hint}");
        assert_eq!(inside_capture(CUresult::CUDA_ERROR_LAUNCH_FAILED), None);
        let message = GraphError::CaptureOnLegacyStream.to_string();
        assert!(message.contains("new_stream()"), "{message}");
    }
}
