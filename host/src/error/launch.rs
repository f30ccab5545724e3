//! What can go wrong before a kernel is launched: the block and grid it asks for, and the buffers a
//! safe kernel is given.

use cudarc::driver::sys::CUresult;
use std::fmt;

/// A kernel launch was refused before anything ran ([`crate::Kernel`], [`crate::TypedKernel`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum KernelLaunchError {
    /// A launch asked for more threads per block than the kernel can run with (its registers, or
    /// the GPU's limit of 1024).
    BlockTooLarge {
        /// The kernel.
        kernel: String,
        /// Threads per block requested.
        requested: u32,
        /// The most threads per block the kernel can run with.
        limit: u32,
        /// Registers per thread of the kernel.
        registers: u32,
    },
    /// A cooperative launch asked for more blocks than can be resident on the GPU at once.
    CooperativeGridTooLarge {
        /// Blocks requested.
        requested: u32,
        /// The most that can be co-resident: `blocks_per_sm × sms`.
        limit: u32,
        /// Resident blocks per multiprocessor at this block size.
        blocks_per_sm: u32,
        /// Multiprocessors on the GPU.
        sms: u32,
    },
    /// A launch passed a different number of parameters than the kernel's PTX entry declares.
    ParameterCount {
        /// The kernel.
        kernel: String,
        /// The parameters its PTX entry declares.
        declared: usize,
        /// The parameters the launch passed (for a kernel's `SymmetricSlice<T>` parameter, two).
        passed: usize,
    },
    /// A split team was passed to a safe kernel as a `Team` value, which may outlive the team.
    SplitTeamByValue {
        /// NVSHMEM's number of the team.
        team: i32,
    },
}

impl fmt::Display for KernelLaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelLaunchError::BlockTooLarge {
                kernel,
                requested,
                limit,
                registers,
            } => write!(
                f,
                "kernel `{kernel}` cannot run blocks of {requested} threads: it runs blocks of at \
                 most {limit} ({registers} registers per thread); launch it with at most {limit} \
                 threads per block, or, where its registers are the limit, cap them in build.rs \
                 with `PtxBuilder::max_registers(\"{kernel}\", N)`"
            ),
            KernelLaunchError::CooperativeGridTooLarge {
                requested,
                limit,
                blocks_per_sm,
                sms,
            } => write!(
                f,
                "a cooperative launch of {requested} blocks cannot be resident at once: at this \
                 block size and shared memory, at most {blocks_per_sm} block(s) per multiprocessor \
                 × {sms} multiprocessors = {limit}; launch at most {limit} blocks (use a \
                 grid-stride loop) or smaller blocks"
            ),
            KernelLaunchError::ParameterCount {
                kernel,
                declared,
                passed,
            } => write!(
                f,
                "kernel `{kernel}` declares {declared} parameter(s) in the loaded PTX, but the \
                 launch passes {passed}: the arguments do not fit the kernel. Pass one argument \
                 per PTX parameter, in order (a kernel's `SymmetricSlice<T>` parameter is two: \
                 its address, then its length), or launch it through `Module::typed_kernel`, which \
                 checks the arguments against the kernel's signature. A typed launch meets this \
                 only where the PTX was changed after nvshmem-builder built it, so that its \
                 signature no longer describes its entry: rebuild the kernel crate"
            ),
            KernelLaunchError::SplitTeamByValue { team } => write!(
                f,
                "team {team} was passed to a safe kernel by value, but only NVSHMEM's predefined \
                 teams can be: a split team's value outlives its handle, and a kernel given a \
                 destroyed team faults; pass the handle instead (`&handle`, not `handle.team()`)"
            ),
        }
    }
}

impl std::error::Error for KernelLaunchError {}

/// What to look at after a CUDA error that a failed kernel leaves behind; such errors are sticky, so
/// whichever later call of the context sees one first (usually a synchronisation) reports it.
pub(super) fn after_kernel_failure(code: CUresult) -> Option<&'static str> {
    use CUresult::*;
    match code {
        CUDA_ERROR_LAUNCH_FAILED | CUDA_ERROR_ILLEGAL_INSTRUCTION | CUDA_ERROR_ASSERT => Some(
            "a kernel trapped. nvshmem-gpu's device checks (a PE out of range) and timeouts print \
             why before they trap: look for the line starting `nvshmem-gpu:` printed above, on \
             this PE's standard output. Without one, a kernel panicked (panics trap silently)",
        ),
        CUDA_ERROR_ILLEGAL_ADDRESS
        | CUDA_ERROR_MISALIGNED_ADDRESS
        | CUDA_ERROR_INVALID_ADDRESS_SPACE
        | CUDA_ERROR_INVALID_PC
        | CUDA_ERROR_HARDWARE_STACK_ERROR => Some(
            "a kernel faulted. A PE out of range is a common cause: kernels built with \
             nvshmem-gpu's device checks (a debug build, or PtxBuilder::checks(true)) trap there \
             and print the call; compute-sanitizer finds the faulting access",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_oversized_block_names_the_limit_and_both_fixes() {
        let message = KernelLaunchError::BlockTooLarge {
            kernel: "reduce_latency_block".into(),
            requested: 1024,
            limit: 256,
            registers: 255,
        }
        .to_string();
        assert_eq!(
            message,
            "kernel `reduce_latency_block` cannot run blocks of 1024 threads: it runs blocks of \
             at most 256 (255 registers per thread); launch it with at most 256 threads per \
             block, or, where its registers are the limit, cap them in build.rs with \
             `PtxBuilder::max_registers(\"reduce_latency_block\", N)`"
        );
    }

    #[test]
    fn a_parameter_count_mismatch_names_both_counts_and_the_cause() {
        let message = KernelLaunchError::ParameterCount {
            kernel: "scale".into(),
            declared: 2,
            passed: 3,
        }
        .to_string();
        for part in [
            "kernel `scale` declares 2 parameter(s)",
            "the launch passes 3",
            "a kernel's `SymmetricSlice<T>` parameter is two",
            "launch it through `Module::typed_kernel`",
        ] {
            assert!(message.contains(part), "{message}");
        }
    }

    #[test]
    fn a_trapped_kernel_points_at_the_device_message() {
        for code in [
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
        ] {
            let hint = after_kernel_failure(code).unwrap();
            assert!(hint.contains("`nvshmem-gpu:` printed above"), "{hint}");
        }
        let hint = after_kernel_failure(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS).unwrap();
        assert!(hint.contains("PtxBuilder::checks(true)"), "{hint}");
        assert_eq!(
            after_kernel_failure(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            None
        );
    }
}
