//! The launcher's rendezvous: the unique-id file a PE reads (any bytes, any expected length: the
//! id or an error) and the PE identity variables (any values: an identity whose numbers agree, or
//! an error). The first byte picks which.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nvshmem_pe_env::{
    LOCAL_N_PES, LOCAL_PE, N_PES, PE, PES_PER_GPU, PeIdentity, RENDEZVOUS, rendezvous,
};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::sync::OnceLock;
use std::time::Duration;

/// A private folder for the id file, made new once per fuzzing process.
fn folder() -> &'static std::path::Path {
    static FOLDER: OnceLock<rendezvous::JobFolder> = OnceLock::new();
    FOLDER
        .get_or_init(|| rendezvous::JobFolder::create().expect("creating the fuzzing folder"))
        .path()
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let expected = usize::from(rest.first().copied().unwrap_or(0));
        let path = folder().join(rendezvous::UNIQUE_ID_FILE);
        let _ = std::fs::remove_file(&path);
        rendezvous::publish_unique_id_at(&path, rest).expect("publishing into a private folder");
        match rendezvous::wait_for_unique_id_at(&path, expected, Duration::from_secs(60)) {
            Ok(bytes) => assert_eq!(bytes, rest),
            Err(error) => assert_ne!(rest.len(), expected, "{error}"),
        }
    } else {
        let values: Vec<OsString> = rest
            .split(|&b| b == 0)
            .map(|v| OsString::from_vec(v.to_vec()))
            .collect();
        let names = [PE, N_PES, LOCAL_PE, LOCAL_N_PES, PES_PER_GPU, RENDEZVOUS];
        let lookup = |name: &str| {
            let i = names.iter().position(|n| *n == name)?;
            values.get(i).cloned()
        };
        if let Ok(Some(me)) = PeIdentity::from_lookup(lookup) {
            assert!(me.pe < me.n_pes && me.local_pe < me.local_n_pes && me.pes_per_gpu > 0);
            let _ = me.gpu_ordinal();
        }
    }
});
