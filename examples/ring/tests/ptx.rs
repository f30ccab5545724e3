//! The ring kernels' PTX, as the builder produced it for this build: kernels exported, NVSHMEM's
//! state symbols kept, ISA and target right, `ptxas` accepts it, and the device checks of PE
//! arguments present exactly in the profile that asks for them; each kernel's signature global,
//! as the device build wrote it, is what the host build's descriptor says.

const PTX_PATH: &str = env!("RING_KERNELS_PTX");
const PTX: &str = include_str!(env!("RING_KERNELS_PTX"));

#[test]
fn kernels_and_nvshmem_state_symbols_are_visible() {
    for entry in ["ring_block", "ring_elementwise"] {
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
    assert!(PTX.contains("\n.version 8.3\n"), "PTX ISA is not 8.3");
    assert!(PTX.contains("\n.target sm_90\n"), "target is not sm_90");
    assert_eq!(env!("RING_KERNELS_NVSHMEM_VERSION"), "3.4.5");
}

#[test]
fn ptxas_assembles_it_for_sm_90() {
    let ptxas = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("ptxas"))
                .find(|p| p.is_file())
        })
        .expect("ptxas is not on PATH: run the tests through `./x test`, which installs it");
    let output = std::process::Command::new(&ptxas)
        .args(["-arch=sm_90", PTX_PATH, "-o", "/dev/null"])
        .output()
        .expect("ptxas runs");
    assert!(
        output.status.success(),
        "ptxas rejected {PTX_PATH}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Whether `ptx` holds `text` as a string constant (PTX writes them as decimal bytes).
fn has_string(ptx: &str, text: &str) -> bool {
    let bytes: Vec<String> = text.bytes().map(|byte| byte.to_string()).collect();
    ptx.contains(&bytes.join(", "))
}

/// Part of the device check's message (`nvshmem-gpu`'s `debug.rs`).
const CHECK_MESSAGE: &str = "called with PE %d, but the PEs are 0..%d";

#[test]
fn device_checks_follow_the_profile() {
    // On with debug assertions (`cargo test`), compiled out in a release build.
    assert_eq!(
        has_string(PTX, CHECK_MESSAGE),
        cfg!(debug_assertions),
        "the ring's checks do not follow the profile"
    );
    if cfg!(debug_assertions) {
        assert!(
            has_string(PTX, "nvshmem_gpu::rma::block::put"),
            "the check does not name the call"
        );
    }
}

#[test]
fn each_kernels_signature_global_is_its_descriptors() {
    for checked in [
        nvshmem_host::check_ptx_signature::<ring_kernels::RingBlock>(PTX),
        nvshmem_host::check_ptx_signature::<ring_kernels::RingElementwise>(PTX),
    ] {
        checked.expect("the device build's signature is the host build's");
    }
}
