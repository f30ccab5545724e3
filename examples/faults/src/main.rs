//! Fault injection for the launcher's fail-fast guarantee: one PE (the victim) dies while the others
//! wait for it in a device-side barrier. The launcher must end the others and exit non-zero within
//! 5 s, naming the victim and how it ended.
//!
//! ```text
//! nvshmemrun -n 2 faults --fault exit|kill|segv|panic|bad-pe|slice-past-end|barrier-in-branch|unset-flag|none [--victim PE]
//! ```
//!
//! With `--fault bad-pe` the victim's kernel puts to PE `n_pes`, which does not exist; the kernels
//! are built with `nvshmem-gpu`'s device checks, so the put traps with a message naming the call
//! and the PE, and the victim exits with status 4 after printing the host's error. With
//! `--fault barrier-in-branch` every PE runs a kernel whose `barrier_all` only the victim reaches,
//! and with `--fault unset-flag` the victim waits for a flag nobody sets: the device checks'
//! deadline (`NVSHMEMRS_DEVICE_TIMEOUT_S`, 60 s by default) traps the victim's call with a message
//! naming it and the likely cause, and the victim exits with status 4 while the others wait in a
//! host barrier for the launcher to end them. With
//! `--fault none` every PE reaches the barrier and the job succeeds (the control case).

use clap::Parser;
use faults_args::{Args, Fault};
use nvshmem_host::{LaunchShape, Module, Nvshmem, SymmetricBuffer};
use std::process::ExitCode;

const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("FAULTS_KERNELS");
/// The exit status of a victim whose kernel trapped (`--fault bad-pe`).
const TRAPPED: i32 = 4;
/// Elements the bad-pe victim puts.
const BAD_PE_COUNT: usize = 1024;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let Args { fault, victim } = Args::parse();
    match run(fault, victim) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("faults: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(fault: Fault, victim: i32) -> Result<(), nvshmem_host::Error> {
    let nvshmem = Nvshmem::init()?;
    let module = nvshmem.load_module(KERNELS)?;
    let kernel = module.kernel("wait_in_barrier")?;
    // The bad-pe victim's buffer: symmetric allocation is collective, so every PE makes it.
    let buffer = nvshmem.alloc::<f32>(BAD_PE_COUNT)?;
    nvshmem.barrier_all();
    if nvshmem.my_pe() == victim && fault != Fault::None {
        println!("PE {victim}: dying now, the others wait in a device barrier");
        match fault {
            Fault::Exit => std::process::exit(3),
            Fault::Kill => die_by_signal(9),
            Fault::Segv => segfault(),
            Fault::Panic => panic!("PE {victim}: injected panic"),
            Fault::BadPe => put_to_missing_pe(&nvshmem, &module, &buffer),
            Fault::SlicePastEnd => put_past_the_end(&nvshmem, &module, &buffer),
            Fault::BarrierInBranch | Fault::UnsetFlag => {}
            Fault::None => unreachable!("the control case has no victim"),
        }
    }
    if matches!(fault, Fault::BarrierInBranch | Fault::UnsetFlag) {
        run_into_the_deadline(&nvshmem, &module, fault, victim);
    }
    println!("PE {}: waiting in the device barrier", nvshmem.my_pe());
    // SAFETY: the kernel takes no parameters; every live PE launches it once.
    unsafe { kernel.launch_cooperative(LaunchShape::linear(1, 32), &[])? };
    nvshmem.synchronize()?;
    println!("PE {}: passed the barrier", nvshmem.my_pe());
    drop(buffer);
    drop(module);
    nvshmem.finalize()
}

/// Launches the kernel that puts to PE `n_pes`; its device check must trap. Exits with [`TRAPPED`]
/// once the host sees the failed launch, without NVSHMEM's teardown, which would wait for the PEs
/// stuck in the device barrier.
fn put_to_missing_pe(nvshmem: &Nvshmem, module: &Module<'_>, buffer: &SymmetricBuffer<f32>) -> ! {
    let launched = module.kernel("put_to_missing_pe").and_then(|kernel| {
        println!("PE {}: putting to PE {}", nvshmem.my_pe(), nvshmem.n_pes());
        let count = buffer.len();
        // SAFETY: `buffer` holds `count` elements on every PE; the put's PE is out of range on
        // purpose, and the kernels' device checks trap before NVSHMEM uses it.
        unsafe {
            kernel.launch(
                LaunchShape::linear(1, 32),
                &[&buffer.as_symmetric_ptr(), &count],
            )?
        };
        nvshmem.synchronize()
    });
    exit_trapped(nvshmem, launched, "the put to a missing PE")
}

/// Launches the safe kernel that takes a range past the end of `buffer`; its bounds check must
/// trap. Exits as [`put_to_missing_pe`] does.
fn put_past_the_end(nvshmem: &Nvshmem, module: &Module<'_>, buffer: &SymmetricBuffer<f32>) -> ! {
    let launched = module.kernel("put_past_the_end").and_then(|kernel| {
        println!("PE {}: putting past the end of a slice", nvshmem.my_pe());
        // SAFETY: `buffer` is a symmetric allocation of `len` elements on every PE, alive until
        // this process exits; the kernel's own check refuses the range past its end.
        // The slice parameter is two words, the address and the length.
        unsafe {
            let (start, len) = (buffer.as_symmetric_ptr(), buffer.len());
            kernel.launch(LaunchShape::linear(1, 32), &[&start, &len])?
        };
        nvshmem.synchronize()
    });
    exit_trapped(nvshmem, launched, "the put past the end of a slice")
}

/// Every PE launches the kernel of `fault` (a barrier only `victim` reaches, or a wait of
/// `victim`'s for a flag nobody sets); the victim's call must time out and trap, and the victim
/// exits with [`TRAPPED`]. The others wait in a host barrier, which the victim never reaches, until
/// the launcher ends them.
fn run_into_the_deadline(nvshmem: &Nvshmem, module: &Module<'_>, fault: Fault, victim: i32) -> ! {
    // Symmetric, so every PE makes it; never freed, as freeing is collective and the victim does
    // not get there.
    let launched = nvshmem.alloc_zeroed::<u64>(1).and_then(|flag| {
        let launched = launch_unmatched(nvshmem, module, fault, victim, &flag);
        std::mem::forget(flag);
        launched
    });
    if nvshmem.my_pe() == victim {
        exit_trapped(nvshmem, launched, "the unmatched blocking call")
    }
    if let Err(error) = launched {
        eprintln!("faults: PE {}: {error}", nvshmem.my_pe());
        std::process::exit(1)
    }
    println!(
        "PE {}: waiting for the launcher to end the job",
        nvshmem.my_pe()
    );
    nvshmem.barrier_all();
    eprintln!("faults: the victim reached the host barrier: its call did not trap");
    std::process::exit(1)
}

/// Launches the kernel of `fault` on this PE and waits for it.
fn launch_unmatched(
    nvshmem: &Nvshmem,
    module: &Module<'_>,
    fault: Fault,
    victim: i32,
    flag: &SymmetricBuffer<u64>,
) -> Result<(), nvshmem_host::Error> {
    println!("PE {}: running the {fault:?} kernel", nvshmem.my_pe());
    let config = LaunchShape::linear(1, 32);
    // SAFETY: the kernels' blocking calls are unmatched on purpose, and the device checks'
    // deadline ends them; `flag` is a symmetric u64 on every PE.
    unsafe {
        match fault {
            Fault::BarrierInBranch => module
                .kernel("barrier_in_branch")?
                .launch_cooperative(config, &[&victim])?,
            Fault::UnsetFlag => module
                .kernel("wait_for_unset_flag")?
                .launch(config, &[&flag.as_symmetric_ptr(), &victim])?,
            _ => unreachable!("only the deadline faults launch these kernels"),
        }
    };
    nvshmem.synchronize()
}

/// Exits with [`TRAPPED`] once the host has seen the failed launch of `what`, without NVSHMEM's
/// teardown, which would wait for the PEs that are still running; with 1 if it did not fail.
fn exit_trapped(nvshmem: &Nvshmem, launched: Result<(), nvshmem_host::Error>, what: &str) -> ! {
    match launched {
        Err(error) => {
            eprintln!("faults: PE {}: {error}", nvshmem.my_pe());
            std::process::exit(TRAPPED)
        }
        Ok(()) => {
            eprintln!("faults: {what} did not trap: are the device checks off?");
            std::process::exit(1)
        }
    }
}

/// Ends the process with `signal` (SIGKILL cannot be caught).
fn die_by_signal(signal: i32) -> ! {
    // SAFETY: `raise` has no preconditions; it delivers the signal to this thread.
    unsafe { libc_raise(signal) };
    unreachable!("signal {signal} did not end the process")
}

/// Dereferences a null pointer: a real segmentation fault, as a bug in host code would cause.
fn segfault() -> ! {
    // SAFETY: deliberately not safe: this write faults, and the default SIGSEGV action ends the
    // process (Rust's handler only reports stack overflows and otherwise restores the default).
    unsafe { std::ptr::null_mut::<u8>().write_volatile(1) };
    unreachable!("writing through a null pointer did not fault")
}

unsafe extern "C" {
    /// C's `raise`: sends `signal` to the calling thread.
    #[link_name = "raise"]
    fn libc_raise(signal: i32) -> i32;
}
