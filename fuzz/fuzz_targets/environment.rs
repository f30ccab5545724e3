//! NVSHMEM's environment as nvshmem-host checks it before initialisation: any value of any
//! documented variable (and of the device checks' time limit) is accepted or refused with an error
//! naming it, never a panic; an accepted size reads back the same when written in bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nvshmem_host::environment::{self, EnvironmentError, VARIABLES};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fuzz_target!(|data: &[u8]| {
    let Some((&which, value)) = data.split_first() else {
        return;
    };
    // One past the documented variables: the device checks' time limit.
    let variable = VARIABLES
        .get(usize::from(which) % (VARIABLES.len() + 1))
        .map_or(environment::DEVICE_TIMEOUT, |(name, _)| *name);
    let value = OsString::from_vec(value.to_vec());
    let lookup = |name: &str| (name == variable).then(|| value.clone());
    match environment::check(lookup) {
        Ok(()) => {}
        Err(error @ EnvironmentError::Unreadable { variable: named, .. }) => {
            assert_eq!(named, variable);
            assert!(error.to_string().starts_with(variable));
        }
        Err(error @ EnvironmentError::DeviceTimeout { .. }) => {
            assert_eq!(variable, environment::DEVICE_TIMEOUT);
            assert!(error.to_string().starts_with(variable));
        }
        // The heap's cap against its granule: a readable value of either, named in the message.
        Err(error @ EnvironmentError::HeapCapBelowGranule { .. }) => {
            assert!(error.to_string().contains(variable));
        }
        Err(error) => panic!("an error this target does not know: {error}"),
    }
    if let Some(bytes) = value.to_str().and_then(environment::parse_size) {
        assert_eq!(environment::parse_size(&bytes.to_string()), Some(bytes));
    }
});
