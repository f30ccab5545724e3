//! On a machine without an NVIDIA driver, initialising says so plainly instead of failing somewhere
//! inside NVSHMEM or CUDA.

#[test]
fn init_without_a_driver_names_the_problem() {
    // SAFETY: only asks the dynamic loader whether libcuda can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        eprintln!(
            "SKIPPED init_without_a_driver_names_the_problem: this machine has a CUDA driver"
        );
        return;
    }
    let error = nvshmem_host::Nvshmem::init().unwrap_err();
    assert!(
        matches!(error, nvshmem_host::Error::NoCudaDriver),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("libcuda.so.1 could not be loaded"),
        "{error}"
    );
}
