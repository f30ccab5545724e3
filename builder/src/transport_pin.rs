//! NVSHMEM's device code compiled for its proxy transport alone.
//!
//! From NVSHMEM 3.8 on, every transfer function chooses its device transport at run time, by a
//! switch on `nvshmemi_device_state_d.selected_device_transport`: the proxy (a host thread serves
//! what loads and stores cannot reach), or IBGDA and GDAKI (the GPU drives the network card
//! itself). The IBGDA and GDAKI branches are nearly all of the code, instantiated at every call
//! site, so a kernel crate pays for them in `ptxas` minutes, in the driver's JIT and in registers
//! whether its jobs use them or not. Replacing the field's loads by the proxy's value lets LLVM drop
//! those branches. The module is then marked with [`PINNED_DEVICE_TRANSPORT_SYMBOL`], and
//! `nvshmem-host` refuses to load it in a job where NVSHMEM selected another transport, with an
//! error that names [`DEVICE_TRANSPORTS_VAR`]; a silent wrong path is never possible.

use crate::BuildError;
use nvshmem_abi::{PINNED_DEVICE_TRANSPORT_SYMBOL, PROXY_DEVICE_TRANSPORT as PROXY};

/// The environment variable that chooses the device transports over the builder's setting:
/// `proxy` or `all`.
pub const DEVICE_TRANSPORTS_VAR: &str = "NVSHMEMRS_DEVICE_TRANSPORTS";

/// Which of NVSHMEM's device transports the kernels' NVSHMEM code can use
/// ([`crate::PtxBuilder::device_transports`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceTransports {
    /// The proxy alone, which every job without IBGDA or GDAKI uses (one machine, NVLink, and
    /// networks served by the host's transports): much smaller and faster-building modules, which
    /// refuse to load where NVSHMEM selected IBGDA or GDAKI. Only for the releases whose device code
    /// was checked (NVSHMEM 3.8.0); with others, the same as [`DeviceTransports::All`].
    Proxy,
    /// Every transport NVSHMEM's device code has.
    All,
}

impl DeviceTransports {
    /// [`DEVICE_TRANSPORTS_VAR`] if set, else `chosen`, else [`DeviceTransports::Proxy`].
    pub(crate) fn resolve(
        chosen: Option<DeviceTransports>,
    ) -> Result<DeviceTransports, BuildError> {
        match std::env::var(DEVICE_TRANSPORTS_VAR) {
            Ok(value) => DeviceTransports::parse(&value).ok_or(BuildError::DeviceTransports(value)),
            Err(_) => Ok(chosen.unwrap_or(DeviceTransports::Proxy)),
        }
    }

    /// `proxy` or `all`, as [`DEVICE_TRANSPORTS_VAR`] and the link step's header say it.
    pub(crate) fn parse(value: &str) -> Option<DeviceTransports> {
        match value.trim() {
            "proxy" => Some(DeviceTransports::Proxy),
            "all" => Some(DeviceTransports::All),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DeviceTransports::Proxy => "proxy",
            DeviceTransports::All => "all",
        }
    }
}

/// The byte offset of `selected_device_transport` in the device state of NVSHMEM `version`
/// (`x.y.z`), where its device code may be pinned.
pub(crate) fn pinnable_offset(version: &str) -> Option<usize> {
    let mut numbers = version.split('.').map(|number| number.parse::<u32>().ok());
    let release = (numbers.next()??, numbers.next()??, numbers.next()??);
    if numbers.next().is_some() {
        return None;
    }
    nvshmem_abi::pinnable_offset(release)
}

/// `ir` (a linked module's text) with every load of the device state's word at `offset` replaced by
/// the proxy's value, and the module marked as pinned; with the number of loads replaced. A module
/// without such loads comes back as it is (nothing to pin, no mark). A reference to the word in a
/// form other than the loads NVSHMEM's bitcode has is an error: pinning part of the reads could
/// mix transports.
pub(crate) fn pin_to_proxy(ir: &str, offset: usize) -> Result<(String, usize), String> {
    let field = format!("@nvshmemi_device_state_d to ptr), i64 {offset})");
    let loose = format!("i64 {offset})");
    let mut pinned = String::with_capacity(ir.len() + 128);
    let mut loads = 0;
    for line in ir.split_inclusive('\n') {
        if !(line.contains("@nvshmemi_device_state_d") && line.contains(&loose)) {
            pinned.push_str(line);
            continue;
        }
        let replaced = line.split_once(" = ").and_then(|(value, load)| {
            let value = value.trim();
            let known = value.starts_with('%')
                && load.starts_with("load i32, ptr getelementptr inbounds ")
                && load.contains(&format!(
                    "(i8, ptr addrspacecast (ptr addrspace(4) {field}, align "
                ));
            known.then(|| format!("  {value} = add i32 {PROXY}, 0\n"))
        });
        match replaced {
            Some(constant) => {
                pinned.push_str(&constant);
                loads += 1;
            }
            None => {
                return Err(format!(
                    "NVSHMEM's device code reads selected_device_transport in a form the builder \
                     does not know (`{}`); build with {DEVICE_TRANSPORTS_VAR}=all",
                    line.trim()
                ));
            }
        }
    }
    if loads > 0 {
        pinned.push_str(&format!(
            "\n@{PINNED_DEVICE_TRANSPORT_SYMBOL} = addrspace(1) constant i32 {PROXY}, align 4\n"
        ));
    }
    Ok((pinned, loads))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOAD: &str = "  %5 = load i32, ptr getelementptr inbounds nuw (i8, ptr addrspacecast \
                        (ptr addrspace(4) @nvshmemi_device_state_d to ptr), i64 772), align 4, \
                        !tbaa !99\n";

    #[test]
    fn the_pinnable_releases_are_3_8_0_only() {
        assert_eq!(pinnable_offset("3.8.0"), Some(772));
        for other in ["3.4.5", "3.8.1", "3.9.0", "4.0.0", ""] {
            assert_eq!(pinnable_offset(other), None, "{other}");
        }
    }

    #[test]
    fn every_load_of_the_field_becomes_the_proxy_and_the_module_is_marked() {
        let ir = format!("define i32 @f() {{\n{LOAD}  switch i32 %5, label %9 []\n{LOAD}}}\n");
        let (pinned, loads) = pin_to_proxy(&ir, 772).unwrap();
        assert_eq!(loads, 2);
        assert_eq!(pinned.matches("  %5 = add i32 0, 0\n").count(), 2);
        assert!(!pinned.contains("i64 772)"), "{pinned}");
        assert!(pinned.contains("switch i32 %5"), "{pinned}");
        assert!(pinned.ends_with(&format!(
            "@{PINNED_DEVICE_TRANSPORT_SYMBOL} = addrspace(1) constant i32 0, align 4\n"
        )));
    }

    #[test]
    fn other_fields_and_modules_without_the_field_are_left_alone() {
        let other = LOAD.replace("i64 772)", "i64 32)");
        let (pinned, loads) = pin_to_proxy(&other, 772).unwrap();
        assert_eq!((pinned.as_str(), loads), (other.as_str(), 0));
    }

    #[test]
    fn an_unknown_form_of_the_read_is_refused() {
        for unknown in [
            LOAD.replace("load i32", "load volatile i32"),
            LOAD.replace("load i32", "load i64"),
            LOAD.replace("%5 = load i32, ", "store i32 1, "),
            "  call void @g(ptr getelementptr (i8, ptr @nvshmemi_device_state_d, i64 772))\n"
                .to_string(),
        ] {
            let error = pin_to_proxy(&unknown, 772).unwrap_err();
            assert!(
                error.contains(&format!("{DEVICE_TRANSPORTS_VAR}=all")),
                "{error}"
            );
        }
    }

    #[test]
    fn the_setting_reads_proxy_and_all_only() {
        assert_eq!(
            DeviceTransports::parse("proxy"),
            Some(DeviceTransports::Proxy)
        );
        assert_eq!(
            DeviceTransports::parse(" all\n"),
            Some(DeviceTransports::All)
        );
        assert_eq!(DeviceTransports::parse("ibgda"), None);
        for setting in [DeviceTransports::Proxy, DeviceTransports::All] {
            assert_eq!(DeviceTransports::parse(setting.as_str()), Some(setting));
        }
    }

    #[test]
    fn a_pinned_module_compiles_to_ptx_without_the_other_transports() {
        let tools = crate::llvm_tools_dir().expect("the toolchain's LLVM tools");
        let ir = format!(
            "%struct.state = type {{ [848 x i8] }}\n\
             @nvshmemi_device_state_d = addrspace(4) externally_initialized constant \
             %struct.state zeroinitializer, align 8\n\
             declare void @proxy()\ndeclare void @ibgda()\n\
             define void @kernel() {{\n{LOAD}  switch i32 %5, label %p [ i32 1, label %i ]\n\
             i:\n  call void @ibgda()\n  ret void\n\
             p:\n  call void @proxy()\n  ret void\n}}\n"
        );
        let (pinned, _) = pin_to_proxy(&ir, 772).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let (input, optimized, ptx) = (
            dir.join("pinned.ll"),
            dir.join("optimized.bc"),
            dir.join("pinned.ptx"),
        );
        std::fs::write(&input, pinned).unwrap();
        // As the link step does: `opt` drops the other transports' branch, `llc` emits the PTX.
        let status = std::process::Command::new(tools.join("opt"))
            .args(["-mtriple=nvptx64-nvidia-cuda", "-passes=default<O3>", "-o"])
            .arg(&optimized)
            .arg(&input)
            .status()
            .unwrap();
        assert!(status.success());
        let status = std::process::Command::new(tools.join("llc"))
            .args(["-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90", "-O3", "-o"])
            .arg(&ptx)
            .arg(&optimized)
            .status()
            .unwrap();
        assert!(status.success());
        let ptx = std::fs::read_to_string(&ptx).unwrap();
        assert!(ptx.contains("proxy"), "{ptx}");
        assert!(!ptx.contains("ibgda"), "{ptx}");
        assert!(ptx.contains(PINNED_DEVICE_TRANSPORT_SYMBOL), "{ptx}");
    }
}
