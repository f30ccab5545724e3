//! The unique-id exchange, alone and between PEs started by the launcher.

use std::time::{Duration, Instant};

use nvshmem_launch::pe_env::PeIdentity;
use nvshmem_launch::rendezvous::{self, RendezvousError};

use crate::common::{TempDir, run};

#[test]
fn published_id_reaches_a_waiting_pe() {
    let dir = TempDir::new();
    let id: Vec<u8> = (0..128).map(|i| (i * 7 + 3) as u8).collect();
    let folder = dir.path().to_path_buf();
    let waiter = std::thread::spawn(move || {
        rendezvous::wait_for_unique_id(&folder, 128, Duration::from_secs(30))
    });
    std::thread::sleep(Duration::from_millis(50));
    rendezvous::publish_unique_id(dir.path(), &id).unwrap();
    assert_eq!(waiter.join().unwrap().unwrap(), id);
    // Only the published file is left: the temporary one was renamed.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [rendezvous::UNIQUE_ID_FILE]);
}

#[test]
fn waiting_times_out_with_a_clear_error() {
    let dir = TempDir::new();
    let start = Instant::now();
    let error =
        rendezvous::wait_for_unique_id(dir.path(), 128, Duration::from_millis(200)).unwrap_err();
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(matches!(error, RendezvousError::TimedOut { .. }));
    let text = error.to_string();
    assert!(
        text.starts_with("PE 0 did not publish the NVSHMEM unique id"),
        "{text}"
    );
    assert!(text.contains("within 200ms"), "{text}");
    assert!(text.contains("died or failed to initialise"), "{text}");
}

#[test]
fn waiting_fails_on_a_wrong_size_or_a_missing_folder() {
    let dir = TempDir::new();
    rendezvous::publish_unique_id(dir.path(), &[1, 2, 3]).unwrap();
    let error =
        rendezvous::wait_for_unique_id(dir.path(), 128, Duration::from_secs(5)).unwrap_err();
    assert!(
        matches!(
            error,
            RendezvousError::WrongLength {
                expected: 128,
                found: 3,
                ..
            }
        ),
        "{error}"
    );

    let gone = dir.path().join("gone");
    let error = rendezvous::wait_for_unique_id(&gone, 128, Duration::from_secs(5)).unwrap_err();
    assert!(
        matches!(error, RendezvousError::FolderGone { .. }),
        "{error}"
    );
}

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
