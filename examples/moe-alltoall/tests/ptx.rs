//! The all-to-all kernels' PTX, as the builder produced it for this build: both kernels exported,
//! NVSHMEM's state symbols kept, and no float multiply or add left for `ptxas` to fuse (the check's
//! exactness does not depend on it, but the reference's order of operations is then the GPU's too).
//! That `ptxas` accepts the PTX the build itself checks: nvshmem-builder fails on a rejected one.

const PTX: &str = include_str!(env!("MOE_ALLTOALL_KERNELS_PTX"));

#[test]
fn kernels_and_nvshmem_state_symbols_are_visible() {
    for entry in ["dispatch", "combine"] {
        assert!(
            PTX.contains(&format!(".visible .entry {entry}(")),
            "no kernel {entry}"
        );
    }
    for symbol in ["nvshmemi_device_state_d", "nvshmemi_device_lib_version_d"] {
        let visible = PTX
            .lines()
            .any(|line| line.starts_with(".visible .const") && line.contains(symbol));
        assert!(visible, "{symbol} is not a visible constant");
    }
}

#[test]
fn float_arithmetic_is_rounded_per_operation() {
    for fusable in ["\tmul.f32", "\tadd.f32", "\tfma.rn.f32"] {
        assert!(!PTX.contains(fusable), "the PTX holds `{fusable}`");
    }
    assert!(
        PTX.contains("mul.rn.f32"),
        "no multiply left: did the kernels change?"
    );
}
