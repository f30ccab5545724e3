//! What the device module's types reject, compiled for the GPU (the module is GPU-only, so
//! trybuild, which compiles for the host, cannot reach it): a safe kernel calling
//! `device::meet_at_end`, a barrier outside the launch's `Leader` whose condition (no other
//! barrier of the PE at once) only the caller can establish.

use std::path::Path;

#[test]
fn a_safe_kernel_cannot_meet_outside_the_leader() {
    // The attack: a kernel with no `unsafe` that meets at its end; beside a barrier through the
    // kernel's `Leader`, two barriers of one PE at once.
    let attack = "#![no_std]\n#![forbid(unsafe_code)]\n\
        use nvshmem_halo::{device, MeetingCounter};\n\
        pub fn meets_at_its_end(meeting: MeetingCounter) {\n\
            device::meet_at_end(meeting, true);\n\
        }\n";
    let halo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = device_check::check_for_gpu(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "meet-at-end-from-safe-code",
        attack,
        &format!(
            "nvshmem-halo = {{ path = {:?} }}",
            halo.display().to_string()
        ),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success()
            && stderr.contains("error[E0133]")
            && stderr.contains("meet_at_end"),
        "a safe function compiled a call of `device::meet_at_end`, or failed for another reason:\n{stderr}"
    );
}
