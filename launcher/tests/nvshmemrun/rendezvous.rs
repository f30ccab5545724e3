//! The unique-id exchange between PEs started by the launcher (the exchange alone is tested in
//! `nvshmem-pe-env`).

use std::time::Duration;

use nvshmem_pe_env::{PeIdentity, rendezvous};

use crate::common::run;

/// Run as a PE by [`pes_started_by_the_launcher_exchange_the_id`]; passes trivially otherwise.
#[test]
fn pe_child() {
    let Some(me) = PeIdentity::from_env().unwrap() else {
        return;
    };
    let id = if me.pe == 0 {
        let id: Vec<u8> = std::process::id().to_le_bytes().repeat(32);
        rendezvous::publish_unique_id(&me.rendezvous, &id).unwrap();
        id
    } else {
        rendezvous::wait_for_unique_id(&me.rendezvous, 128, Duration::from_secs(30)).unwrap()
    };
    // libtest has already written `test rendezvous::pe_child ... ` on this line.
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "identity pe={} n={} gpu={} id={hex}",
        me.pe,
        me.n_pes,
        me.gpu_ordinal()
    );
}

#[test]
fn pes_started_by_the_launcher_exchange_the_id() {
    let exe = std::env::current_exe().unwrap();
    let done = run(
        &[
            "-n",
            "4",
            "--pes-per-gpu",
            "2",
            exe.to_str().unwrap(),
            "--exact",
            "rendezvous::pe_child",
            "--nocapture",
            "--test-threads=1",
        ],
        Some("0,1"),
    );
    assert_eq!(done.code, Some(0));
    let mut ids = Vec::new();
    for pe in 0..4 {
        let line = done
            .stdout_of(pe)
            .into_iter()
            .find_map(|l| l.find("identity ").map(|at| &l[at..]))
            .unwrap_or_else(|| panic!("PE {pe} printed no identity"));
        let (head, id) = line.split_once(" id=").unwrap();
        assert_eq!(head, format!("identity pe={pe} n=4 gpu={}", pe / 2));
        assert_eq!(id.len(), 256);
        ids.push(id.to_string());
    }
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}
