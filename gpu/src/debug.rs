//! Device-side diagnostics for the opt-in timeouts ([`crate::p2p::wait_until_timeout`],
//! [`crate::sync::barrier_all_timeout`]) and the PE checks of the `checks` feature (`checks.rs`):
//! the cycle counter, and a message through CUDA's `vprintf` followed by a trap; also the messages
//! of the `checks` feature's deadlines (`deadline.rs`) and the clock they read.
#![cfg(target_arch = "nvptx64")]

use core::ffi::{CStr, c_void};

/// The SM's 64-bit cycle counter (`%clock64`).
#[inline]
pub(crate) fn clock64() -> u64 {
    let cycles: u64;
    // SAFETY: reading a PTX special register has no preconditions and touches no memory.
    unsafe {
        core::arch::asm!("mov.u64 {}, %clock64;", out(reg64) cycles, options(nomem, nostack));
    }
    cycles
}

/// The GPU's nanosecond clock (`%globaltimer`): unlike `%clock64` it does not depend on the SM's
/// frequency, so a limit in seconds means seconds.
#[cfg(feature = "checks")]
#[inline]
pub(crate) fn global_timer_ns() -> u64 {
    let ns: u64;
    // SAFETY: reading a PTX special register has no preconditions and touches no memory; not
    // `pure`, so every read is a new one.
    unsafe {
        core::arch::asm!("mov.u64 {}, %globaltimer;", out(reg64) ns, options(nomem, nostack));
    }
    ns
}

/// Which PE, block and thread is speaking, as `vprintf` arguments.
#[repr(C)]
struct Who {
    pe: i32,
    block: u32,
    thread: u32,
}

fn who() -> Who {
    Who {
        pe: crate::pe::my_pe(),
        block: crate::thread::block_idx_x(),
        thread: crate::thread::rank_in_block(),
    }
}

/// Prints `format` with `args` (a `#[repr(C)]` struct laid out as `vprintf` expects: each argument
/// at its natural alignment).
fn print<A>(format: &CStr, args: &A) {
    // SAFETY: `format` is NUL-terminated and its conversions match `A`'s fields (callers below).
    unsafe {
        core::arch::nvptx::vprintf(format.as_ptr().cast(), (args as *const A).cast::<c_void>());
    }
}

/// Ends the kernel with an error, which the host sees at its next synchronisation, after the driver
/// has flushed the printf buffer.
fn trap() -> ! {
    // SAFETY: `trap` has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}

/// Prints `format` with `args` (see [`print`]), then traps.
fn fail<A>(format: &CStr, args: &A) -> ! {
    print(format, args);
    trap()
}

/// As [`fail`], with one message per warp: the threads of a warp or block call fail a check
/// together, so the lowest active thread of the warp prints, and the others wait for it before they
/// all trap (a thread that trapped first could end the kernel before the message is printed).
#[cfg(feature = "checks")]
fn fail_once_per_warp<A>(format: &CStr, args: &A) -> ! {
    let (active, lower): (u32, u32);
    // SAFETY: reads which threads of the warp are here, and the lanes below this one; no memory.
    unsafe {
        core::arch::asm!(
            "activemask.b32 {active};",
            "mov.u32 {lower}, %lanemask_lt;",
            active = out(reg32) active,
            lower = out(reg32) lower,
            options(nomem, nostack),
        );
    }
    if active & lower == 0 {
        print(format, args);
    }
    // SAFETY: every thread of `active` is here (they took the same branch to this function) and
    // reaches this barrier, the printing one after its message.
    unsafe { core::arch::asm!("bar.warp.sync {};", in(reg32) active, options(nostack)) };
    trap()
}

#[repr(C)]
struct WaitArgs {
    who: Who,
    what: *const u8,
    cycles: u64,
    ivar: *const c_void,
    cmp: *const u8,
    expected: i64,
    now: i64,
}

/// Reports a wait whose budget ran out and traps; `cmp` is the comparison's C operator (`"=="`, …).
#[cold]
pub(crate) fn wait_timed_out(
    what: &CStr,
    ivar: *const c_void,
    cmp: &CStr,
    expected: i64,
    now: i64,
    cycles: u64,
) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s gave up after %llu cycles: waiting for *%p %s %lld, it is %lld\n",
        &WaitArgs {
            who: who(),
            what: what.as_ptr().cast(),
            cycles,
            ivar,
            cmp: cmp.as_ptr().cast(),
            expected,
            now,
        },
    )
}

#[repr(C)]
struct BarrierArgs {
    who: Who,
    cycles: u64,
    missing: i32,
    n_pes: i32,
    epoch: u64,
}

/// Reports a barrier whose budget ran out waiting for PE `missing` and traps.
#[cold]
pub(crate) fn barrier_timed_out(missing: i32, n_pes: i32, epoch: u64, cycles: u64) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): barrier_all_timeout gave up after %llu cycles: PE %d of %d has not arrived at barrier %llu\n",
        &BarrierArgs {
            who: who(),
            cycles,
            missing,
            n_pes,
            epoch,
        },
    )
}

#[repr(C)]
#[cfg(feature = "checks")]
struct PeArgs {
    who: Who,
    function: *const u8,
    pe: i32,
    n_pes: i32,
}

/// Reports a call of `function` with a PE outside `0..n_pes` and traps.
#[cold]
#[inline(never)]
#[cfg(feature = "checks")]
pub(crate) fn pe_out_of_range(function: &CStr, pe: i32, n_pes: i32) -> ! {
    fail_once_per_warp(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s called with PE %d, but the PEs are 0..%d\n",
        &PeArgs {
            who: who(),
            function: function.as_ptr().cast(),
            pe,
            n_pes,
        },
    )
}

#[repr(C)]
#[cfg(feature = "checks")]
struct TeamPeArgs {
    who: Who,
    function: *const u8,
    pe: i32,
    team: i32,
    n_pes: i32,
}

/// Reports a call of `function` with a PE outside `0..n_pes` of team `team` and traps.
#[cold]
#[inline(never)]
#[cfg(feature = "checks")]
pub(crate) fn team_pe_out_of_range(function: &CStr, team: i32, pe: i32, n_pes: i32) -> ! {
    fail_once_per_warp(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s called with PE %d of team %d, but the team's PEs are 0..%d\n",
        &TeamPeArgs {
            who: who(),
            function: function.as_ptr().cast(),
            pe,
            team,
            n_pes,
        },
    )
}

#[repr(C)]
#[cfg(feature = "checks")]
struct ExpiredWaitArgs {
    who: Who,
    function: *const u8,
    ivar: *const c_void,
    cmp: *const u8,
    expected: i64,
    now: i64,
    ms: u64,
}

/// Reports a wait on one variable that outlived the module's time limit (`deadline.rs`) and traps.
#[cold]
#[inline(never)]
#[cfg(feature = "checks")]
pub(crate) fn wait_expired(
    function: &CStr,
    waited_ns: u64,
    ivar: *const c_void,
    cmp: &CStr,
    expected: i64,
    now: i64,
) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: *%p %s %lld never held (it is %lld): did the PE that should write it skip its put or signal? Gave up after %llu ms (NVSHMEMRS_DEVICE_TIMEOUT_S sets the limit)\n",
        &ExpiredWaitArgs {
            who: who(),
            function: function.as_ptr().cast(),
            ivar,
            cmp: cmp.as_ptr().cast(),
            expected,
            now,
            ms: waited_ns / 1_000_000,
        },
    )
}

#[repr(C)]
#[cfg(feature = "checks")]
struct ExpiredWaitsArgs {
    who: Who,
    function: *const u8,
    count: usize,
    ivars: *const c_void,
    ms: u64,
}

/// Reports a wait on `count` variables from `ivars` that outlived the module's time limit and
/// traps.
#[cold]
#[inline(never)]
#[cfg(feature = "checks")]
pub(crate) fn waits_expired(
    function: &CStr,
    waited_ns: u64,
    ivars: *const c_void,
    count: usize,
) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: the condition on the %llu variables at %p never held: did the PEs that should write them skip their puts or signals? Gave up after %llu ms (NVSHMEMRS_DEVICE_TIMEOUT_S sets the limit)\n",
        &ExpiredWaitsArgs {
            who: who(),
            function: function.as_ptr().cast(),
            count,
            ivars,
            ms: waited_ns / 1_000_000,
        },
    )
}

#[repr(C)]
#[cfg(feature = "checks")]
struct ExpiredCollectiveArgs {
    who: Who,
    function: *const u8,
    missing: i32,
    member: i32,
    members: i32,
    ms: u64,
}

/// Reports a barrier, sync or collective whose handshake waited past the module's time limit for
/// PE `missing` (number `member` of the team's `members`) and traps.
#[cold]
#[inline(never)]
#[cfg(feature = "checks")]
pub(crate) fn collective_timed_out(
    function: &CStr,
    waited_ns: u64,
    missing: i32,
    member: i32,
    members: i32,
) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: PE %d (number %d of the team's %d) has not arrived: is the call inside a branch that not every PE takes? Gave up after %llu ms (NVSHMEMRS_DEVICE_TIMEOUT_S sets the limit)\n",
        &ExpiredCollectiveArgs {
            who: who(),
            function: function.as_ptr().cast(),
            missing,
            member,
            members,
            ms: waited_ns / 1_000_000,
        },
    )
}

#[repr(C)]
struct BoundsArgs {
    who: Who,
    call: *const u8,
    start: usize,
    end: usize,
    len: usize,
}

/// Reports a range `start..end` outside a symmetric slice of `len` elements, given to `call`, and
/// traps: the safe layer's bounds check, on in every build.
#[cold]
#[inline(never)]
pub(crate) fn out_of_bounds(call: &CStr, start: usize, end: usize, len: usize) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: range %llu..%llu is out of bounds for a symmetric slice of %llu elements\n",
        &BoundsArgs {
            who: who(),
            call: call.as_ptr().cast(),
            start,
            end,
            len,
        },
    )
}

#[repr(C)]
struct LengthArgs {
    who: Who,
    call: *const u8,
    dest: usize,
    source: usize,
}

/// Reports a transfer between slices of different lengths, given to `call`, and traps.
#[cold]
#[inline(never)]
pub(crate) fn lengths_differ(call: &CStr, dest: usize, source: usize) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: the destination has %llu elements but the source has %llu; take equal ranges with `range`\n",
        &LengthArgs {
            who: who(),
            call: call.as_ptr().cast(),
            dest,
            source,
        },
    )
}

#[repr(C)]
struct MisfitArgs {
    who: Who,
    call: *const u8,
    dest: usize,
    source: usize,
    n_pes: i32,
}

/// Reports a collective `call` given slices that do not fit it (lengths or overlap) and traps.
#[cold]
#[inline(never)]
pub(crate) fn collective_misfit(call: &CStr, dest: usize, source: usize, n_pes: i32) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: a destination of %llu and a source of %llu elements do not fit this collective over a team of %d PEs, or they overlap; see the call's documentation for the lengths\n",
        &MisfitArgs {
            who: who(),
            call: call.as_ptr().cast(),
            dest,
            source,
            n_pes,
        },
    )
}

#[repr(C)]
struct RootArgs {
    who: Who,
    call: *const u8,
    root: i32,
    n_pes: i32,
}

/// Reports a broadcast `call` from a root outside the team and traps.
#[cold]
#[inline(never)]
pub(crate) fn root_out_of_range(call: &CStr, root: i32, n_pes: i32) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: root %d is not a PE of the team, whose PEs are 0..%d\n",
        &RootArgs {
            who: who(),
            call: call.as_ptr().cast(),
            root,
            n_pes,
        },
    )
}

#[repr(C)]
struct MisalignedArgs {
    who: Who,
    call: *const u8,
    address: usize,
}

/// Reports a 16-byte vector access of `call` at an address that is not 16-byte aligned and traps.
#[cold]
#[inline(never)]
pub(crate) fn misaligned(call: &CStr, address: usize) -> ! {
    fail(
        c"nvshmem-gpu: PE %d (block %u, thread %u): %s: address 0x%llx is not 16-byte aligned; start vectors at an index whose address is a multiple of 16 (allocate with `alloc_aligned`)\n",
        &MisalignedArgs {
            who: who(),
            call: call.as_ptr().cast(),
            address,
        },
    )
}
