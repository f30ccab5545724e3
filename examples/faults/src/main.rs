//! Fault injection for the launcher's fail-fast guarantee: one PE (the victim) dies while the others
//! wait for it in a device-side barrier. The launcher must end the others and exit non-zero within
//! 5 s, naming the victim and how it ended.
//!
//! ```text
//! nvshmemrun -n 2 faults --fault exit|kill|segv|panic|bad-pe|none [--victim PE]
//! ```
//!
//! With `--fault bad-pe` the victim's kernel puts to PE `n_pes`, which does not exist; the kernels
//! are built with `nvshmem-gpu`'s device checks, so the put traps with a message naming the call
//! and the PE, and the victim exits with status 4 after printing the host's error. With
//! `--fault none` every PE reaches the barrier and the job succeeds (the control case).

use nvshmem_host::{LaunchConfig, Module, Nvshmem, SymmetricBuffer};
use std::process::ExitCode;

const PTX: &str = include_str!(env!("FAULTS_KERNELS_PTX"));
const USAGE: &str = "usage: faults --fault exit|kill|segv|panic|bad-pe|none [--victim PE]";
/// The exit status of a victim whose kernel trapped (`--fault bad-pe`).
const TRAPPED: i32 = 4;
/// Elements the bad-pe victim puts.
const BAD_PE_COUNT: usize = 1024;

#[derive(Clone, Copy, PartialEq)]
enum Fault {
    Exit,
    Kill,
    Segv,
    Panic,
    BadPe,
    None,
}

fn parse(args: &[String]) -> Result<(Fault, i32), String> {
    let (mut fault, mut victim) = (None, 1);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--fault" => {
                fault = Some(match value.as_str() {
                    "exit" => Fault::Exit,
                    "kill" => Fault::Kill,
                    "segv" => Fault::Segv,
                    "panic" => Fault::Panic,
                    "bad-pe" => Fault::BadPe,
                    "none" => Fault::None,
                    other => return Err(format!("unknown fault `{other}`")),
                })
            }
            "--victim" => {
                victim = value
                    .parse()
                    .map_err(|_| format!("--victim takes a PE number, not `{value}`"))?
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok((fault.ok_or("--fault is required")?, victim))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (fault, victim) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(problem) => {
            eprintln!("faults: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
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
    let module = nvshmem.load_module(PTX)?;
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
            Fault::None => unreachable!("the control case has no victim"),
        }
    }
    println!("PE {}: waiting in the device barrier", nvshmem.my_pe());
    // SAFETY: the kernel takes no parameters; every live PE launches it once.
    unsafe { kernel.launch_cooperative(LaunchConfig::linear(1, 32), &[])? };
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
                LaunchConfig::linear(1, 32),
                &[&buffer.as_symmetric_ptr(), &count],
            )?
        };
        nvshmem.synchronize()
    });
    match launched {
        Err(error) => {
            eprintln!("faults: PE {}: {error}", nvshmem.my_pe());
            std::process::exit(TRAPPED)
        }
        Ok(()) => {
            eprintln!("faults: the put to a missing PE did not trap: are the device checks off?");
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
