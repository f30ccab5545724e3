//! Recognising the lines NVSHMEM prints just before it ends the process itself.
//!
//! When NVSHMEM meets an error it cannot hand back to the program (in its proxy thread, say), it
//! prints one line and calls `exit(-1)` (status 255) or `abort()`. Its `exit` can then hang in the
//! exit-time teardown of CUDA and NVSHMEM, which waits for kernels that can no longer finish, so
//! the launcher cannot rely on the PE ending: it watches for these lines instead.

/// Whether `line` (one line of a PE's output, without its ending) is one that NVSHMEM 3.4 prints
/// right before it calls `exit` or `abort`:
///
/// - `…: aborting due to error in process_channel_dma` (or another function): the proxy thread,
///   the host-side put/get paths, `nvshmem_init` and `nvshmem_finalize` print this, then `exit`;
/// - `…: non-zero status: 7: …, exiting... …`: NVSHMEM's check-and-exit macro (its check-and-return
///   twin prints `non-zero status: 7 …` without `exiting`, and the program gets the error back);
/// - `… NVSHMEM ABORT`: with `NVSHMEM_DEBUG=ABORT`, a warning followed by `abort`.
///
/// Each is matched on NVSHMEM's exact wording, so that a program's own line that merely mentions
/// an abort is not taken for one.
pub(crate) fn is_fatal(line: &str) -> bool {
    line.contains("aborting due to error in ")
        || line
            .split_once("non-zero status: ")
            .is_some_and(|(_, rest)| rest.contains(", exiting... "))
        || line.trim_end().ends_with(" NVSHMEM ABORT")
}

#[cfg(test)]
mod tests {
    use super::is_fatal;

    #[test]
    fn nvshmems_fatal_lines_are_recognised() {
        for line in [
            "/dvs/p4/build/sw/rel/gpgpu/toolkit/r13.0/main_nvshmem/src/host/proxy/proxy.cpp:\
             process_channel_amo:622: aborting due to error in process_channel_dma",
            "nvshmem_api.h:52: aborting due to error in nvshmemi_init_thread ",
            "init.cu:88: non-zero status: 7: No such file or directory, exiting... bootstrap failed",
            "gpu7:1234:1240 [0] proxy.cpp:300 NVSHMEM ABORT",
        ] {
            assert!(is_fatal(line), "not recognised: {line}");
        }
    }

    #[test]
    fn other_lines_that_mention_errors_or_aborts_are_not() {
        for line in [
            "",
            "ring: aborting the retry loop after 3 tries",
            "abort: the user asked to stop",
            "error in process_channel_dma",
            // NVSHMEM's check-and-return: the program gets the error and reports it itself.
            "init.cu:1034: non-zero status: 7 nvshmem detect topo failed ",
            "gpu7:1234:1240 [0] proxy.cpp:300 NVSHMEM WARN something odd",
            "[pe 0] exiting... as planned",
        ] {
            assert!(!is_fatal(line), "taken for NVSHMEM's abort: {line}");
        }
    }
}
