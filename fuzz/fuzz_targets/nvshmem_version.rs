//! NVSHMEM's version, as read from `nvshmem_version.h`: any text gives a version or an error, and a
//! version read back from the header it would be written as is the same, and shows as `major.minor…`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(version) = nvshmem_locate::parse_version_header(text) {
        let header = format!(
            "#define NVSHMEM_VENDOR_MAJOR_VERSION {}\n#define NVSHMEM_VENDOR_MINOR_VERSION {}\n\
             #define NVSHMEM_VENDOR_PATCH_VERSION {}\n",
            version.major, version.minor, version.patch
        );
        assert_eq!(nvshmem_locate::parse_version_header(&header), Ok(version));
        assert!(version.to_string().starts_with(&format!("{}.{}", version.major, version.minor)));
    }
});
