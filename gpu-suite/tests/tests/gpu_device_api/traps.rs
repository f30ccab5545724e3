//! The debugging timeouts: a wait nobody answers and a barrier a PE stays away from must trap
//! promptly with the device's message.

use super::layout::{MAX_PES, THREADS};
use super::support::{IMAGE, zeroed};
use nvshmem_host::{Bootstrap, LaunchShape, Nvshmem};
use std::time::Duration;

/// The exit status of a PE whose kernel trapped as the `trap_*` tests expect.
const TRAPPED: i32 = 75;
/// The cycle budget of the `trap_*` kernels: about a second.
const TRAP_BUDGET_CYCLES: u64 = 1 << 31;

/// The body of the `trap_*` tests: started alone, relaunch on `DEVICE_API_TRAP_PES` PEs and check
/// that the job fails promptly with `message` in some PE's output; as a PE, run `kernel`, which
/// must trap, and exit with [`TRAPPED`].
fn expect_trap(test: &str, kernel: &str, message: &str) {
    // The name the test harness knows: this module's path without the crate's name.
    let test = &match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{test}"),
        None => test.to_string(),
    };
    match Bootstrap::detect().expect("detecting how this process was started") {
        Bootstrap::SinglePe => {
            let pes: usize = std::env::var("DEVICE_API_TRAP_PES")
                .ok()
                .and_then(|value| value.parse().ok())
                .unwrap_or(2);
            let pes = std::num::NonZeroUsize::new(pes).expect("at least one PE");
            let outcome = nvshmem_launch::Launch::current_program()
                .expect("this test's path")
                .args([
                    "--ignored",
                    "--exact",
                    test,
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .n_pes(pes)
                .pes_per_gpu(pes)
                .timeout(Duration::from_secs(90))
                .run()
                .expect("the job starts");
            println!("{outcome}");
            assert!(
                matches!(outcome.ending, nvshmem_launch::Ending::PeFailed { .. }),
                "the job must end by a PE failing, not {:?}",
                outcome.ending
            );
            assert_ne!(outcome.exit_code(), 0);
            assert!(
                outcome
                    .pes
                    .iter()
                    .flat_map(|pe| &pe.last_lines)
                    .any(|line| line.contains(message)),
                "no PE printed `{message}`"
            );
        }
        bootstrap => {
            let nvshmem = Nvshmem::init_with(bootstrap).expect("init");
            let me = nvshmem.my_pe();
            let module = nvshmem.load_module(IMAGE).expect("load");
            let words = zeroed!(nvshmem, u64, MAX_PES + 1);
            nvshmem.barrier_all();
            let kernel = module.kernel(kernel).expect("the kernel exists");
            // SAFETY: both trap kernels take (a zeroed symmetric buffer of MAX_PES + 1 words, a
            // cycle budget); every PE launches it.
            let launched = unsafe {
                kernel.launch_cooperative(
                    LaunchShape::linear(1, THREADS),
                    &[&words.as_symmetric_ptr(), &TRAP_BUDGET_CYCLES],
                )
            };
            match launched.and_then(|()| nvshmem.synchronize()) {
                Err(error) => {
                    println!("PE {me}: the kernel trapped as expected: {error}");
                    std::process::exit(TRAPPED);
                }
                Ok(()) => {
                    // The PE that is not waited on (the barrier test's last PE) gets here: give the
                    // others time to trap before NVSHMEM's teardown.
                    println!("PE {me}: the kernel finished");
                    std::thread::sleep(Duration::from_secs(10));
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn trap_wait_until_timeout_when_nobody_answers() {
    expect_trap(
        "trap_wait_until_timeout_when_nobody_answers",
        "wait_for_nobody",
        "wait_until_timeout gave up after",
    );
}

#[test]
#[ignore = "needs a GPU and NVSHMEM: gpu-suite/run.sh runs it on the GPU machine"]
fn trap_barrier_all_timeout_when_a_pe_stays_away() {
    expect_trap(
        "trap_barrier_all_timeout_when_a_pe_stays_away",
        "barrier_missing_last_pe",
        "has not arrived at barrier 1",
    );
}
