//! GPU tests of what the host API refuses, or keeps safe, when a program misuses it: lengths that
//! wrap, a leaked registration guard, an allocation one PE refuses, buffers dropped in different
//! orders. `gpu-suite/run.sh` runs each through `nvshmemrun` with 2 PEs sharing one GPU
//! (`#[ignore]`d in `cargo test`: they need a GPU).

#![forbid(unsafe_code)]

use cudarc::driver::DevicePtr;
use nvshmem_host::{Cmp, Error, MemoryError, Nvshmem, SignalOp, StreamOperations, Team};

fn two_pes() -> Nvshmem {
    let nvshmem = Nvshmem::init().expect("init");
    assert_eq!(nvshmem.n_pes(), 2, "run with 2 PEs");
    nvshmem
}

#[test]
#[ignore = "needs a GPU and NVSHMEM with 2 PEs: gpu-suite/run.sh runs it on the GPU machine"]
fn wrapping_lengths_are_refused_before_anything_is_enqueued() {
    let nvshmem = two_pes();
    let (me, other) = (nvshmem.my_pe(), 1 - nvshmem.my_pe());
    // Allocated just before the signal word: the word at index usize::MAX (-1 once wrapped) is
    // its last.
    let neighbour = nvshmem.alloc_zeroed::<u64>(8).expect("allocated");
    let signal = nvshmem.alloc_zeroed::<u64>(1).expect("allocated");
    let index_error = |result: Result<(), Error>| {
        let error = result.expect_err("an index of usize::MAX must be refused");
        assert!(
            matches!(
                error,
                Error::Memory(MemoryError::IndexOutOfRange {
                    index: usize::MAX,
                    len: 1,
                    ..
                })
            ),
            "{error}"
        );
    };
    index_error(nvshmem.signal_op_on_stream(&signal, usize::MAX, 7, SignalOp::Set, me));
    index_error(nvshmem.signal_op_on_stream(&signal, usize::MAX, 7, SignalOp::Set, other));
    index_error(nvshmem.signal_wait_until_on_stream(&signal, usize::MAX, Cmp::Eq, 0));
    // 64-byte buffers: 1 << 63 elements per block wrap `count × 2 PEs` to 0.
    let dest = nvshmem.alloc_zeroed::<u64>(8).expect("allocated");
    let source = nvshmem.alloc_zeroed::<u64>(8).expect("allocated");
    index_error(nvshmem.put_signal_on_stream(
        &dest,
        &source,
        1,
        &signal,
        usize::MAX,
        7,
        SignalOp::Set,
        other,
    ));
    let overflow = |result: Result<(), Error>| {
        let error = result.expect_err("a count that wraps must be refused");
        assert!(
            matches!(error, Error::Memory(MemoryError::Overflow { .. })),
            "{error}"
        );
        println!("PE {me}: {error}");
    };
    overflow(nvshmem.alltoall_on_stream(Team::WORLD, &dest, &source, 1 << 63));
    overflow(nvshmem.fcollect_on_stream(Team::WORLD, &dest, &source, 1 << 63));
    assert!(
        nvshmem
            .alltoall_on_stream(Team::WORLD, &dest, &source, usize::MAX)
            .is_err()
    );
    nvshmem.synchronize().expect("nothing failed on the stream");
    nvshmem.barrier_all();
    assert_eq!(neighbour.to_vec().unwrap(), [0; 8], "the neighbour changed");
    assert_eq!(signal.to_vec().unwrap(), [0], "the signal changed");
    assert_eq!(dest.to_vec().unwrap(), [0; 8], "dest changed");
    drop((dest, source, signal, neighbour));
    nvshmem.finalize().expect("finalize");
}

/// The attack: a get queued into registered cudarc memory, the guard leaked, the memory
/// freed and allocated again on its stream before the get runs. The fresh allocation must not
/// receive the get's data: the free waits for the get. Its on-stream signal wait needs NVSHMEM's
/// full multi-PE-per-GPU mode (MPS), hence the name, which the suite reads.
#[test]
#[ignore = "needs a GPU and NVSHMEM with 2 PEs: gpu-suite/run.sh runs it on the GPU machine"]
fn full_mpg_a_leaked_registration_is_not_freed_under_a_queued_get() {
    const N: usize = 1 << 16;
    let nvshmem = two_pes();
    let (me, other) = (nvshmem.my_pe(), 1 - nvshmem.my_pe());
    let mut source = nvshmem.alloc::<u32>(N).expect("allocated");
    source
        .copy_from_host(&vec![1000 + me as u32; N])
        .expect("copied");
    let gate = nvshmem.alloc_zeroed::<u64>(1).expect("allocated");
    nvshmem.barrier_all();
    let context = nvshmem.context();
    let queue = context.new_stream().expect("a stream");
    let owner = context.new_stream().expect("a stream");
    let slice = owner.alloc_zeros::<u32>(N).expect("allocated");
    owner.synchronize().expect("allocated");
    let address = slice.device_ptr(&owner).0;
    let guard = nvshmem.register(&slice).expect("registered");
    let on = nvshmem.on(&queue).expect("a stream of NVSHMEM's context");
    // The get waits on `queue` until this PE opens the gate, after the memory was freed.
    on.signal_wait_until_on_stream(&gate, 0, Cmp::Eq, 1)
        .expect("enqueued");
    on.get_on_stream(&guard, &source, N, other)
        .expect("enqueued");
    std::mem::forget(guard);
    drop(slice);
    let fresh = owner.alloc_zeros::<u32>(N).expect("allocated");
    let reused = fresh.device_ptr(&owner).0 == address;
    // On the handle's stream, which does not wait for `owner` or `queue`.
    nvshmem
        .signal_op_on_stream(&gate, 0, 1, SignalOp::Set, me)
        .expect("enqueued");
    queue.synchronize().expect("the get finished");
    let values = owner.clone_dtoh(&fresh).expect("copied");
    let written = values.iter().filter(|&&value| value != 0).count();
    println!(
        "PE {me}: the fresh allocation reuses the freed address: {reused}; {written} of {N} \
         values written by the earlier get"
    );
    assert_eq!(written, 0, "the queued get wrote into a fresh allocation");
    if reused {
        // The leaked guard's range is still registered: registering over it is refused.
        let error = nvshmem.register(&fresh).expect_err("overlaps a leaked one");
        assert!(
            matches!(error, Error::Memory(MemoryError::AlreadyRegistered { .. })),
            "{error}"
        );
    }
    nvshmem.barrier_all();
    drop(fresh);
    drop((gate, source));
    nvshmem.finalize().expect("finalize");
}

/// PE 1 asks for more bytes than fit in usize, PE 0 for 8 elements: PE 1 refuses locally, and PE 0
/// must learn it before entering `nvshmem_malloc` (where it would wait for PE 1 forever).
#[test]
#[ignore = "needs a GPU and NVSHMEM with 2 PEs: gpu-suite/run.sh runs it on the GPU machine"]
fn an_allocation_one_pe_refuses_is_refused_on_every_pe() {
    let nvshmem = two_pes();
    let me = nvshmem.my_pe();
    let len = if me == 1 { usize::MAX } else { 8 };
    let error = nvshmem
        .alloc::<u64>(len)
        .expect_err("PE 1's refusal must reach every PE");
    let message = error.to_string();
    println!("PE {me}: {message}");
    let Error::Memory(MemoryError::AllocationRefused { refusals }) = &error else {
        panic!("{message}")
    };
    assert_eq!(
        refusals
            .iter()
            .map(|refusal| refusal.pe)
            .collect::<Vec<_>>(),
        [1],
        "{message}"
    );
    assert!(
        message.contains("PE 1: the request's bytes (elements × element size)")
            && message.contains("does not fit in usize"),
        "{message}"
    );
    // No PE allocated: the heap is in step, and the next matching request succeeds on both.
    let after = nvshmem
        .alloc::<u64>(8)
        .expect("the job goes on after a refused request");
    drop(after);
    nvshmem.finalize().expect("finalize");
}

/// PE 0 drops A then B, PE 1 B then A: every free meets, but the heaps may now be out of step, so
/// the next checked allocation must be refused on both PEs, before either allocates, and so must
/// the one after it.
#[test]
#[ignore = "needs a GPU and NVSHMEM with 2 PEs: gpu-suite/run.sh runs it on the GPU machine"]
fn buffers_dropped_in_different_orders_refuse_the_next_allocation() {
    let nvshmem = two_pes();
    let me = nvshmem.my_pe();
    let a = nvshmem.alloc::<u64>(512).expect("allocated");
    let b = nvshmem.alloc::<u64>(512).expect("allocated");
    if me == 0 {
        drop(a);
        drop(b);
    } else {
        drop(b);
        drop(a);
    }
    for _ in 0..2 {
        let error = nvshmem
            .alloc::<u64>(8)
            .expect_err("the heaps' histories differ");
        let message = error.to_string();
        println!("PE {me}: {message}");
        let Error::Memory(MemoryError::HeapHistoryMismatch { digests }) = &error else {
            panic!("{message}")
        };
        assert_eq!(digests.len(), 2, "{message}");
        assert_ne!(digests[0], digests[1], "{message}");
        assert!(
            message.contains("freed (or allocated) symmetric buffers in different orders")
                && message.contains("Drop symmetric buffers in the same order on every PE"),
            "{message}"
        );
    }
    nvshmem.barrier_all();
    nvshmem.finalize().expect("finalize");
}
