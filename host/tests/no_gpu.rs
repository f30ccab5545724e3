//! On a machine without an NVIDIA driver, initialising says so plainly instead of failing somewhere
//! inside NVSHMEM or CUDA.
//!
//! Whether the test can run is known only at run time, so it runs under libtest-mimic, which counts
//! it as ignored, with the reason, on a machine that has a driver (libtest would count it passed).

use libtest_mimic::{Arguments, Completion, Failed, Trial};

fn init_without_a_driver_names_the_problem() -> Result<Completion, Failed> {
    // SAFETY: only asks the dynamic loader whether libcuda can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        return Ok(Completion::ignored_with(
            "this machine has a CUDA driver; the test needs one without",
        ));
    }
    let error = nvshmem_host::Nvshmem::init().unwrap_err();
    assert!(
        matches!(
            error,
            nvshmem_host::Error::Init(nvshmem_host::InitError::NoCudaDriver)
        ),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("libcuda.so.1 could not be loaded"),
        "{error}"
    );
    Ok(Completion::Completed)
}

fn main() -> std::process::ExitCode {
    let tests = vec![Trial::ignorable_test(
        "init_without_a_driver_names_the_problem",
        init_without_a_driver_names_the_problem,
    )];
    libtest_mimic::run(&Arguments::from_args(), tests).exit_code()
}
