//! NVSHMEM's environment variables, checked before NVSHMEM reads them.
//!
//! NVSHMEM parses its own variables during initialisation, and a value it cannot read ends badly:
//! `NVSHMEM_SYMMETRIC_SIZE=lots` prints a warning and then crashes inside NVSHMEM, and a boolean
//! such as `NVSHMEM_DISABLE_NVLS=off` is silently read as *true* (NVSHMEM takes every value not
//! starting with `0`, `n` or `f` as true). [`check`] reads every variable this project documents
//! the way NVSHMEM will, and refuses a value that NVSHMEM would reject or misread, naming the
//! variable, its value and the forms it accepts. It also refuses a heap limit that NVSHMEM accepts
//! and then cannot start in: below one heap granule, NVSHMEM's own set-up fails, its
//! initialisation still reports success, and the first allocation crashes the process.

use std::ffi::OsString;
use std::fmt;

/// The symmetric heap NVSHMEM reserves per PE when `NVSHMEM_SYMMETRIC_SIZE` is unset: 1 GiB.
pub const DEFAULT_SYMMETRIC_SIZE: u64 = 1 << 30;

/// The variable that sizes the symmetric heap.
pub const SYMMETRIC_SIZE: &str = "NVSHMEM_SYMMETRIC_SIZE";

/// The variable that caps the symmetric heap when NVSHMEM grows it through CUDA's virtual memory
/// management (the default on x86).
pub const MAX_MEMORY_PER_GPU: &str = "NVSHMEM_MAX_MEMORY_PER_GPU";

/// NVSHMEM's default for [`MAX_MEMORY_PER_GPU`]: 128 GiB.
pub const DEFAULT_MAX_MEMORY_PER_GPU: u64 = 128 << 30;

/// The variable that sets the granule in which NVSHMEM maps physical memory into the heap.
pub const CUMEM_GRANULARITY: &str = "NVSHMEM_CUMEM_GRANULARITY";

/// NVSHMEM's default for [`CUMEM_GRANULARITY`]: 512 MiB.
pub const DEFAULT_CUMEM_GRANULARITY: u64 = 512 << 20;

/// The variable that turns CUDA's virtual memory management off, which fixes the heap's size.
pub const DISABLE_CUDA_VMM: &str = "NVSHMEM_DISABLE_CUDA_VMM";

/// The variable that limits, in seconds, every blocking call of kernels built with device checks
/// (checked with the others before NVSHMEM starts; written into each such module as it loads).
pub const DEVICE_TIMEOUT: &str = "NVSHMEMRS_DEVICE_TIMEOUT_S";

/// A variable refused at initialisation: the allocation check ([`crate::allocation_check`]) is
/// not switched from the environment, as a setting that differed between PEs would let their heaps
/// go out of step unseen.
pub const ALLOCATION_CHECK: &str = "NVSHMEMRS_CHECK_ALLOCATIONS";

/// What a variable holds, and so which values are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A size in bytes: `1073741824`, `512M`, `1.5G`, `64k` (suffixes k, M, G, T are powers of 1024).
    Size,
    /// A switch: `1`/`0`, `yes`/`no`, `true`/`false`, `y`/`n`, `t`/`f` (any case).
    Bool,
    /// One of a fixed list of names (any case).
    OneOf(&'static [&'static str]),
}

impl Kind {
    /// The accepted forms, as an error message lists them.
    fn accepted(self) -> String {
        match self {
            Kind::Size => {
                "a size in bytes: a whole or decimal number, optionally followed by k, M, \
                           G or T for KiB, MiB, GiB or TiB (e.g. 1073741824, 512M, 1.5G)"
                    .to_string()
            }
            Kind::Bool => "1 or 0 (also yes/no, true/false, y/n, t/f)".to_string(),
            Kind::OneOf(names) => format!("one of {}", names.join(", ")),
        }
    }
}

/// The `NVSHMEM_*` variables this project documents, with what each holds.
pub const VARIABLES: [(&str, Kind); 11] = [
    (SYMMETRIC_SIZE, Kind::Size),
    (MAX_MEMORY_PER_GPU, Kind::Size),
    (CUMEM_GRANULARITY, Kind::Size),
    (DISABLE_CUDA_VMM, Kind::Bool),
    ("NVSHMEM_DISABLE_NVLS", Kind::Bool),
    ("NVSHMEM_DISABLE_P2P", Kind::Bool),
    ("NVSHMEM_DISABLE_NCCL", Kind::Bool),
    (
        "NVSHMEM_BOOTSTRAP",
        Kind::OneOf(&["PMI", "MPI", "SHMEM", "UID", "plugin"]),
    ),
    (
        "NVSHMEM_BOOTSTRAP_PMI",
        Kind::OneOf(&["PMI", "PMI-2", "PMIX"]),
    ),
    (
        "NVSHMEM_REMOTE_TRANSPORT",
        Kind::OneOf(&["ibrc", "ibgda", "ibdevx", "ucx", "libfabric", "none"]),
    ),
    (
        "NVSHMEM_DEBUG",
        Kind::OneOf(&["VERSION", "WARN", "INFO", "ABORT", "TRACE"]),
    ),
];

/// NVSHMEM's environment would make it fail or misread a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvironmentError {
    /// A variable of [`VARIABLES`] holds a value NVSHMEM cannot read, or would read otherwise than
    /// meant.
    Unreadable {
        /// The variable.
        variable: &'static str,
        /// Its value (lossily decoded where it is not UTF-8).
        value: String,
        /// What it holds.
        kind: Kind,
    },
    /// [`DEVICE_TIMEOUT`] is not a number of seconds above 0 and at most a year.
    DeviceTimeout {
        /// Its value (lossily decoded where it is not UTF-8).
        value: String,
    },
    /// [`ALLOCATION_CHECK`] is set: the allocation check is on on every PE.
    AllocationCheckVariable {
        /// Its value (lossily decoded where it is not UTF-8).
        value: String,
    },
    /// With CUDA's virtual memory management on, the heap's cap is below one granule: NVSHMEM
    /// cannot map the memory of its own teams, and crashes at the first allocation.
    HeapCapBelowGranule {
        /// The cap in bytes ([`MAX_MEMORY_PER_GPU`], or its default).
        cap: u64,
        /// The granule in bytes ([`CUMEM_GRANULARITY`], or its default).
        granule: u64,
    },
}

impl fmt::Display for EnvironmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvironmentError::Unreadable {
                variable,
                value,
                kind,
            } => {
                write!(f, "{variable}={value:?} is not {}", kind.accepted())?;
                if *kind == Kind::Bool {
                    write!(
                        f,
                        " (NVSHMEM would read it as true: only values starting with 0, n or f are \
                         false)"
                    )?;
                }
                write!(f, "; set {variable} to such a value, or unset it")
            }
            EnvironmentError::DeviceTimeout { value } => write!(
                f,
                "{DEVICE_TIMEOUT}={value:?} is not a number of seconds above 0 and at most a year \
                 (e.g. 60 or 2.5), the time a blocking device call of a kernel built with device \
                 checks may take; set it to such a value, or unset it for the default of {} s",
                nvshmem_abi::DEFAULT_TIMEOUT_NS / 1_000_000_000
            ),
            EnvironmentError::AllocationCheckVariable { value } => write!(
                f,
                "{}={value:?} is not read: the allocation check is on on every PE, as safe code \
                 needs (a setting that differed between PEs would let their heaps go out of step \
                 unseen); unset it. A program that must allocate without the check calls \
                 `unsafe {{ nvshmem.set_allocation_check(false) }}` at the same point on every PE",
                ALLOCATION_CHECK
            ),
            EnvironmentError::HeapCapBelowGranule { cap, granule } => write!(
                f,
                "{MAX_MEMORY_PER_GPU} ({} MiB) is below one granule of the symmetric heap \
                 ({CUMEM_GRANULARITY}, {} MiB): NVSHMEM maps the heap in granules and could not \
                 map even its own teams' memory, so its first allocation would crash; set \
                 {MAX_MEMORY_PER_GPU} to at least {}M, or {CUMEM_GRANULARITY} to at most {}M \
                 (or unset {MAX_MEMORY_PER_GPU}: the default is 128G)",
                cap >> 20,
                granule >> 20,
                granule.div_ceil(1 << 20),
                cap >> 20,
            ),
        }
    }
}

impl std::error::Error for EnvironmentError {}

/// Checks every variable of [`VARIABLES`] that `lookup` finds (use `|name| std::env::var_os(name)`
/// for the process's environment); the first bad one is the error.
pub fn check(lookup: impl Fn(&str) -> Option<OsString>) -> Result<(), EnvironmentError> {
    for (variable, kind) in VARIABLES {
        if let Some(value) = lookup(variable) {
            let text = value.to_str().unwrap_or("");
            let fine = match kind {
                Kind::Size => parse_size(text).is_some(),
                Kind::Bool => parse_bool(text).is_some(),
                Kind::OneOf(names) => names.iter().any(|name| name.eq_ignore_ascii_case(text)),
            };
            if !fine {
                return Err(EnvironmentError::Unreadable {
                    variable,
                    value: value.to_string_lossy().into_owned(),
                    kind,
                });
            }
        }
    }
    device_timeout_ns(&lookup)?;
    if let Some(value) = lookup(ALLOCATION_CHECK) {
        return Err(EnvironmentError::AllocationCheckVariable {
            value: value.to_string_lossy().into_owned(),
        });
    }
    check_heap_cap(&lookup)
}

/// The limit in nanoseconds that `lookup` sets through [`DEVICE_TIMEOUT`] for the blocking calls
/// of kernels built with device checks, or the device's default.
pub fn device_timeout_ns(
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<u64, EnvironmentError> {
    let Some(value) = lookup(DEVICE_TIMEOUT) else {
        return Ok(nvshmem_abi::DEFAULT_TIMEOUT_NS);
    };
    let bad = || EnvironmentError::DeviceTimeout {
        value: value.to_string_lossy().into_owned(),
    };
    let seconds: f64 = value.to_str().ok_or_else(bad)?.parse().map_err(|_| bad())?;
    // Up to a year: beyond that a limit is no limit, and the nanoseconds stay far inside u64.
    if !(seconds > 0.0 && seconds <= 365.0 * 86_400.0) {
        return Err(bad());
    }
    Ok((seconds * 1e9).ceil() as u64)
}

/// Refuses a heap cap below one granule while CUDA's virtual memory management is on; [`check`]
/// has refused unreadable values already.
fn check_heap_cap(lookup: &impl Fn(&str) -> Option<OsString>) -> Result<(), EnvironmentError> {
    let Some(HeapBound::Cap(cap)) = heap_bound(lookup) else {
        return Ok(());
    };
    let granule = heap_granule(lookup);
    if cap < granule {
        Err(EnvironmentError::HeapCapBelowGranule { cap, granule })
    } else {
        Ok(())
    }
}

/// NVSHMEM's variables that decide which transports connect the PEs.
const TRANSPORT_VARIABLES: [&str; 2] = ["NVSHMEM_DISABLE_P2P", "NVSHMEM_REMOTE_TRANSPORT"];

/// The transport settings `lookup` finds, `(variable, value)`, those set only: what an
/// initialisation that could not reach every PE reports ([`crate::InitError::Incomplete`]).
pub(crate) fn transport_settings(
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Vec<(&'static str, String)> {
    TRANSPORT_VARIABLES
        .iter()
        .filter_map(|&name| Some((name, lookup(name)?.to_string_lossy().into_owned())))
        .collect()
}

/// The piece NVSHMEM grows its heap by, a request rounded up to it: [`CUMEM_GRANULARITY`] or its
/// default (also where unreadable, which [`check`] refuses before NVSHMEM starts).
pub fn heap_granule(lookup: impl Fn(&str) -> Option<OsString>) -> u64 {
    size_or_default(&lookup, CUMEM_GRANULARITY, DEFAULT_CUMEM_GRANULARITY)
        .unwrap_or(DEFAULT_CUMEM_GRANULARITY)
}

/// The size `lookup` sets for `name`, or `default` where it is unset; `None` where it is
/// unreadable.
fn size_or_default(
    lookup: &impl Fn(&str) -> Option<OsString>,
    name: &str,
    default: u64,
) -> Option<u64> {
    match lookup(name) {
        None => Some(default),
        Some(value) => parse_size(value.to_str()?),
    }
}

/// What bounds the symmetric heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapBound {
    /// NVSHMEM grows the heap through CUDA's virtual memory management up to this many bytes
    /// ([`MAX_MEMORY_PER_GPU`] or its default).
    Cap(u64),
    /// With [`DISABLE_CUDA_VMM`] set, the heap is fixed at this many bytes ([`SYMMETRIC_SIZE`] or
    /// its default).
    Fixed(u64),
    /// The GPU has only this many bytes free, whatever NVSHMEM's settings.
    FreeMemory(u64),
}

/// What NVSHMEM's settings in `lookup` bound the heap by: its cap, or its fixed size without
/// CUDA's virtual memory management. `None` where the bounding variable is unreadable ([`check`]
/// refuses that before NVSHMEM starts).
pub fn heap_bound(lookup: impl Fn(&str) -> Option<OsString>) -> Option<HeapBound> {
    let vmm_off = lookup(DISABLE_CUDA_VMM)
        .and_then(|value| parse_bool(value.to_str()?))
        .unwrap_or(false);
    if vmm_off {
        size_or_default(&lookup, SYMMETRIC_SIZE, DEFAULT_SYMMETRIC_SIZE).map(HeapBound::Fixed)
    } else {
        size_or_default(&lookup, MAX_MEMORY_PER_GPU, DEFAULT_MAX_MEMORY_PER_GPU).map(HeapBound::Cap)
    }
}

/// A size as NVSHMEM reads it: a non-negative decimal number (`3`, `0.5`, `.5`), then optionally
/// one of `k`, `m`, `g`, `t` (either case) scaling by 2^10, 2^20, 2^30 or 2^40, rounded up to a
/// whole byte. `None` for anything else, including what NVSHMEM reads otherwise than it looks
/// (`20kk`, NVSHMEM's 20 KiB) and sizes beyond `u64`.
pub fn parse_size(text: &str) -> Option<u64> {
    let (number, shift) = match text.as_bytes().last()? {
        b'k' | b'K' => (&text[..text.len() - 1], 10),
        b'm' | b'M' => (&text[..text.len() - 1], 20),
        b'g' | b'G' => (&text[..text.len() - 1], 30),
        b't' | b'T' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !digits(whole) || !digits(fraction) {
        return None;
    }
    // Exact arithmetic: the whole part shifted, plus the fraction's bytes rounded up.
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let scaled = whole.checked_mul(1 << shift)?;
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        return Some(scaled);
    }
    // A fraction of 2^shift bytes: digits beyond 20 cannot change the rounded-up byte count by more
    // than the ceiling already does, so they are cut to keep the product within u128.
    let (kept, rest) = fraction.split_at(fraction.len().min(20));
    let numerator: u128 = kept.parse::<u128>().ok()? + u128::from(!rest.is_empty());
    let denominator = 10u128.pow(kept.len() as u32);
    let bytes = (numerator << shift).div_ceil(denominator);
    scaled.checked_add(u64::try_from(bytes).ok()?)
}

/// A switch as NVSHMEM reads it, for the values that mean what they say.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "y" | "yes" | "t" | "true" => Some(true),
        "0" | "n" | "no" | "f" | "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn only(name: &'static str, value: &str) -> impl Fn(&str) -> Option<OsString> {
        let value = OsString::from(value);
        move |asked: &str| (asked == name).then(|| value.clone())
    }

    #[test]
    fn the_allocation_check_cannot_be_switched_from_the_environment() {
        for value in ["0", "1"] {
            let refused = check(only(ALLOCATION_CHECK, value)).unwrap_err();
            assert_eq!(
                refused,
                EnvironmentError::AllocationCheckVariable {
                    value: value.into()
                }
            );
            let message = refused.to_string();
            assert!(message.contains("unset it"), "{message}");
            assert!(message.contains("set_allocation_check(false)"), "{message}");
        }
    }

    #[test]
    fn the_transport_settings_are_those_set() {
        assert_eq!(transport_settings(|_| None), Vec::new());
        assert_eq!(
            transport_settings(only("NVSHMEM_REMOTE_TRANSPORT", "none")),
            vec![("NVSHMEM_REMOTE_TRANSPORT", "none".to_string())]
        );
    }

    #[test]
    fn sizes_read_as_nvshmem_reads_them() {
        for (text, bytes) in [
            ("1073741824", 1 << 30),
            ("20m", 20 << 20),
            ("3.1M", 3250586),
            (".5m", 1 << 19),
            ("0.5M", 1 << 19),
            ("1G", 1 << 30),
            ("2t", 2 << 40),
            ("64K", 64 << 10),
            ("0", 0),
            ("1.0000000000000000000001k", 1025),
        ] {
            assert_eq!(parse_size(text), Some(bytes), "{text}");
        }
        for text in [
            "lots", "", "k", ".", "-1", "-1G", "1GB", "20kk", "1e9", "inf", "nan", " 1G",
        ] {
            assert_eq!(parse_size(text), None, "{text}");
        }
        assert_eq!(parse_size("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_size("18446744073709551616"), None);
        assert_eq!(parse_size("16777216T"), None);
    }

    #[test]
    fn a_bad_value_names_the_variable_its_value_and_the_forms() {
        let error = check(only(SYMMETRIC_SIZE, "lots")).unwrap_err();
        let message = error.to_string();
        for part in [
            "NVSHMEM_SYMMETRIC_SIZE=\"lots\"",
            "512M",
            "1.5G",
            "unset it",
        ] {
            assert!(message.contains(part), "{message}");
        }
        let error = check(only("NVSHMEM_DISABLE_NVLS", "off")).unwrap_err();
        assert!(error.to_string().contains("read it as true"), "{error}");
        let error = check(only("NVSHMEM_REMOTE_TRANSPORT", "infiniband")).unwrap_err();
        assert!(error.to_string().contains("ibrc, ibgda"), "{error}");
    }

    fn these(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |asked: &str| {
            pairs
                .iter()
                .find(|(name, _)| *name == asked)
                .map(|(_, value)| OsString::from(value))
        }
    }

    #[test]
    fn a_heap_cap_below_one_granule_is_refused_while_vmm_is_on() {
        // With NVSHMEM 3.4.5, caps of 8M, 64M and 256M with the default 512M granule failed its
        // team set-up and crashed at the first allocation; 600M and 1100M ran.
        let error = check(only(MAX_MEMORY_PER_GPU, "256M")).unwrap_err();
        assert_eq!(
            error,
            EnvironmentError::HeapCapBelowGranule {
                cap: 256 << 20,
                granule: DEFAULT_CUMEM_GRANULARITY
            }
        );
        let message = error.to_string();
        for part in [
            "NVSHMEM_MAX_MEMORY_PER_GPU (256 MiB)",
            "NVSHMEM_CUMEM_GRANULARITY, 512 MiB",
            "NVSHMEM_MAX_MEMORY_PER_GPU to at least 512M",
            "NVSHMEM_CUMEM_GRANULARITY to at most 256M",
        ] {
            assert!(message.contains(part), "{message}");
        }
        assert!(
            check(these(&[
                (CUMEM_GRANULARITY, "1G"),
                (MAX_MEMORY_PER_GPU, "600M")
            ]))
            .is_err()
        );
        for fine in [
            &[(MAX_MEMORY_PER_GPU, "600M")][..],
            &[(MAX_MEMORY_PER_GPU, "512M")],
            &[(MAX_MEMORY_PER_GPU, "100M"), (CUMEM_GRANULARITY, "2M")],
            &[(MAX_MEMORY_PER_GPU, "8M"), (DISABLE_CUDA_VMM, "1")],
            &[(CUMEM_GRANULARITY, "64G")],
        ] {
            assert_eq!(check(these(fine)), Ok(()), "{fine:?}");
        }
    }

    #[test]
    fn the_device_timeout_is_read_in_seconds_and_defaults_to_the_devices() {
        let with = |value| device_timeout_ns(only(DEVICE_TIMEOUT, value));
        assert_eq!(
            device_timeout_ns(|_| None),
            Ok(nvshmem_abi::DEFAULT_TIMEOUT_NS)
        );
        assert_eq!(with("3"), Ok(3_000_000_000));
        assert_eq!(with("0.5"), Ok(500_000_000));
        assert_eq!(with("1e-9"), Ok(1));
        for value in ["0", "-3", "soon", "", "inf", "NaN", "1e12", " 3"] {
            let message = with(value).unwrap_err().to_string();
            for part in [
                &format!("{DEVICE_TIMEOUT}={value:?}"),
                "seconds above 0",
                "unset it",
            ] {
                assert!(message.contains(part), "{value}: {message}");
            }
            // Refused with the other variables, before NVSHMEM starts.
            assert!(check(only(DEVICE_TIMEOUT, value)).is_err(), "{value}");
        }
    }

    #[test]
    fn good_values_pass() {
        for (name, value) in [
            (SYMMETRIC_SIZE, "4G"),
            ("NVSHMEM_DISABLE_NVLS", "1"),
            ("NVSHMEM_DISABLE_P2P", "FALSE"),
            ("NVSHMEM_BOOTSTRAP", "plugin"),
            ("NVSHMEM_BOOTSTRAP", "mpi"),
            ("NVSHMEM_BOOTSTRAP_PMI", "PMI-2"),
            ("NVSHMEM_REMOTE_TRANSPORT", "none"),
            ("NVSHMEM_DEBUG", "info"),
            (MAX_MEMORY_PER_GPU, "64G"),
            (CUMEM_GRANULARITY, "2M"),
            (DISABLE_CUDA_VMM, "0"),
        ] {
            assert_eq!(check(only(name, value)), Ok(()), "{name}={value}");
        }
        assert_eq!(check(|_| None), Ok(()));
    }

    #[test]
    fn the_heap_grows_by_its_granule() {
        assert_eq!(heap_granule(|_| None), DEFAULT_CUMEM_GRANULARITY);
        assert_eq!(heap_granule(only(CUMEM_GRANULARITY, "2G")), 2 << 30);
        assert_eq!(
            heap_granule(only(CUMEM_GRANULARITY, "lots")),
            DEFAULT_CUMEM_GRANULARITY
        );
    }

    #[test]
    fn the_heap_is_bounded_by_its_cap_unless_vmm_is_off() {
        use HeapBound::{Cap, Fixed};
        assert_eq!(heap_bound(|_| None), Some(Cap(DEFAULT_MAX_MEMORY_PER_GPU)));
        assert_eq!(
            heap_bound(only(MAX_MEMORY_PER_GPU, "1G")),
            Some(Cap(1 << 30))
        );
        assert_eq!(heap_bound(only(SYMMETRIC_SIZE, "2M")), Some(Cap(128 << 30)));
        assert_eq!(
            heap_bound(only(DISABLE_CUDA_VMM, "1")),
            Some(Fixed(DEFAULT_SYMMETRIC_SIZE))
        );
        let fixed = these(&[(DISABLE_CUDA_VMM, "yes"), (SYMMETRIC_SIZE, "2G")]);
        assert_eq!(heap_bound(fixed), Some(Fixed(2 << 30)));
        assert_eq!(heap_bound(only(MAX_MEMORY_PER_GPU, "lots")), None);
    }

    proptest! {
        #[test]
        fn whole_sizes_with_a_suffix_scale_exactly(n in 0u64..1 << 23, unit in 0usize..5) {
            let (suffix, shift) = [("", 0), ("k", 10), ("M", 20), ("g", 30), ("T", 40)][unit];
            prop_assert_eq!(parse_size(&format!("{n}{suffix}")), Some(n << shift));
        }

        #[test]
        fn decimal_sizes_round_up_to_a_byte(whole in 0u64..1000, thousandths in 0u64..1000) {
            let text = format!("{whole}.{thousandths:03}M");
            let exact = (whole * 1000 + thousandths) << 20;
            prop_assert_eq!(parse_size(&text), Some(exact.div_ceil(1000)));
        }

        #[test]
        fn any_text_is_a_size_or_refused_without_panicking(text in ".{0,30}") {
            if let Some(bytes) = parse_size(&text) {
                let digits_and_suffix = text.trim_end_matches(|c: char| "kKmMgGtT".contains(c));
                prop_assert!(digits_and_suffix.chars().all(|c| c.is_ascii_digit() || c == '.'));
                prop_assert!(text.contains('.') || bytes > 0 || text.starts_with('0'));
            }
        }
    }
}
