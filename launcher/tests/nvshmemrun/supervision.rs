//! Supervision: output, environment, failures, signals, time limits.

use std::num::NonZeroUsize;
use std::time::Duration;

use nvshmem_launch::{Ending, Launch, PeEnd};

use crate::common::{GUARANTEE, TempDir, assert_all_gone, run, start};

#[test]
fn the_unique_id_bootstrap_stays_on_this_machine() {
    let dir = TempDir::new();
    let script = dir.script(
        "pe.sh",
        r#"echo "ifname=$NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME""#,
    );
    let done = run(&["-n", "1", &script], Some("0"));
    assert_eq!(done.code, Some(0));
    // The user's own choice, where this test's environment makes one, is passed on instead.
    let expected = std::env::var("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME").unwrap_or("lo".into());
    assert_eq!(done.stdout_of(0), [format!("ifname={expected}")]);
}

#[test]
fn a_huge_count_of_pes_per_gpu_is_a_usage_error_not_a_crash() {
    let done = run(&["--pes-per-gpu", "4611686018427387904", "true"], Some("0"));
    assert_eq!(done.code, Some(2));
    assert!(
        done.stderr
            .contains("from 1 to 64 (the most PEs one GPU may hold)"),
        "{}",
        done.stderr
    );
}

#[test]
fn all_succeed_with_prefixed_output_and_the_pe_environment() {
    let dir = TempDir::new();
    let script = dir.script(
        "pe.sh",
        r#"
echo "env pe=$NVSHMEMRS_PE n=$NVSHMEMRS_N_PES local=$NVSHMEMRS_LOCAL_PE local_n=$NVSHMEMRS_LOCAL_N_PES k=$NVSHMEMRS_PES_PER_GPU"
echo "rendezvous $NVSHMEMRS_RENDEZVOUS $(stat -c %a "$NVSHMEMRS_RENDEZVOUS")"
i=0
while [ $i -lt 300 ]; do echo "line $i of pe $NVSHMEMRS_PE"; i=$((i + 1)); done
echo "to stderr from $NVSHMEMRS_PE" >&2
printf "partial from $NVSHMEMRS_PE"
"#,
    );
    let done = run(&["-n", "4", "--pes-per-gpu", "2", &script], Some("0,1"));
    assert_eq!(done.code, Some(0));

    let mut folders = Vec::new();
    for pe in 0..4 {
        let lines = done.stdout_of(pe);
        assert_eq!(lines.len(), 303, "PE {pe}: {lines:?}");
        assert_eq!(
            lines[0],
            format!("env pe={pe} n=4 local={pe} local_n=4 k=2")
        );
        let (folder, mode) = lines[1]
            .strip_prefix("rendezvous ")
            .unwrap()
            .rsplit_once(' ')
            .unwrap();
        assert_eq!(mode, "700", "the rendezvous folder is private");
        folders.push(folder.to_string());
        for (i, line) in lines[2..302].iter().enumerate() {
            assert_eq!(*line, format!("line {i} of pe {pe}"));
        }
        assert_eq!(lines[302], format!("partial from {pe}"));
        assert_eq!(
            done.stderr
                .lines()
                .filter(|l| *l == format!("[pe {pe}] to stderr from {pe}"))
                .count(),
            1
        );
    }
    assert!(folders.iter().all(|f| *f == folders[0]), "{folders:?}");
    assert!(
        !std::path::Path::new(&folders[0]).exists(),
        "the rendezvous folder is removed after the job"
    );
    assert!(
        done.stdout.lines().all(|l| l.starts_with("[pe ")),
        "every stdout line has a prefix"
    );
    assert!(!done.stdout.contains("to stderr"));
    // Two PEs per GPU without MPS are warned about before the job, and nothing else is said.
    assert!(
        done.stderr.lines().all(
            |l| l.starts_with("[pe ") || l.starts_with("nvshmemrun: warning: 2 PEs will share")
        ),
        "no summary on success"
    );
}

#[test]
fn a_failing_pe_ends_the_others() {
    let dir = TempDir::new();
    // PE 0 is the process itself, PE 1 a shell with a child, PE 3 ignores SIGTERM (so it needs the
    // SIGKILL after the grace period). PE 2 waits until the others have recorded their ids, then
    // fails.
    let script = dir.script(
        "pe.sh",
        r#"
case $NVSHMEMRS_PE in
0) echo $$ > "$D/pid.0.tmp"; mv "$D/pid.0.tmp" "$D/pid.0"; exec sleep 1000 ;;
1) sleep 1000 & echo "$$ $!" > "$D/pid.1.tmp"; mv "$D/pid.1.tmp" "$D/pid.1"; wait ;;
3) trap '' TERM; sleep 1000 & echo "$$ $!" > "$D/pid.3.tmp"; mv "$D/pid.3.tmp" "$D/pid.3"; wait ;;
2) while [ ! -f "$D/pid.0" ] || [ ! -f "$D/pid.1" ] || [ ! -f "$D/pid.3" ]; do sleep 0.01; done
   echo "starting"
   echo "about to fail" >&2
   exit 3 ;;
esac
"#,
    );
    let done = run(&["-n", "4", &script], Some("0,1,2,3"));
    assert_eq!(done.code, Some(3));
    assert!(done.elapsed < GUARANTEE, "took {:?}", done.elapsed);
    assert_all_gone(&dir.pids(&["pid.0", "pid.1", "pid.3"]));
    for needle in [
        "nvshmemrun: PE 2 exited with status 3",
        // stdout and stderr are separate pipes, so their relative order is not fixed.
        "last lines of PE 2:\n    [pe 2] ",
        "\n    [pe 2] starting\n",
        "\n    [pe 2] about to fail\n",
        "PE 0: killed by signal 15 (SIGTERM) (stopped by the launcher)",
        "PE 3: killed by signal 9 (SIGKILL) (stopped by the launcher)",
    ] {
        assert!(done.stderr.contains(needle), "missing {needle:?}");
    }
}

#[test]
fn pes_killed_by_signals_report_the_signal() {
    for (signal, code, name) in [
        ("KILL", 137, "killed by signal 9 (SIGKILL)"),
        ("SEGV", 139, "killed by signal 11 (SIGSEGV)"),
    ] {
        let dir = TempDir::new();
        let script = dir.script(
            "pe.sh",
            &format!(
                r#"
if [ "$NVSHMEMRS_PE" = 1 ]; then
    while [ ! -f "$D/pid.0" ]; do sleep 0.01; done
    echo "last words"
    kill -{signal} $$
fi
echo $$ > "$D/pid.0.tmp"; mv "$D/pid.0.tmp" "$D/pid.0"; exec sleep 1000
"#
            ),
        );
        let done = run(&["-n", "2", &script], Some("0,1"));
        assert_eq!(done.code, Some(code));
        assert!(done.elapsed < GUARANTEE, "took {:?}", done.elapsed);
        assert!(
            done.stderr.contains(&format!("PE 1 {name}")),
            "{}",
            done.stderr
        );
        assert!(done.stderr.contains("[pe 1] last words"));
        assert_all_gone(&dir.pids(&["pid.0"]));
    }
}

#[test]
fn the_time_limit_ends_hung_pes() {
    let dir = TempDir::new();
    let script = dir.script(
        "pe.sh",
        r#"
[ "$NVSHMEMRS_PE" = 0 ] && exit 0
echo "hanging"
sleep 1000 & echo "$$ $!" > "$D/pid.$NVSHMEMRS_PE"; wait
"#,
    );
    let done = run(&["--timeout", "1", "-n", "3", &script], Some("0,1,2"));
    assert_eq!(done.code, Some(124));
    assert!(done.elapsed >= Duration::from_secs(1));
    assert!(
        done.elapsed < Duration::from_secs(4),
        "took {:?}",
        done.elapsed
    );
    assert!(
        done.stderr
            .contains("timed out after 1s with PEs 1, 2 still running"),
        "{}",
        done.stderr
    );
    assert!(done.stderr.contains("[pe 2] hanging"));
    assert_all_gone(&dir.pids(&["pid.1", "pid.2"]));
}

#[test]
fn signals_to_the_launcher_end_every_pe() {
    for (signal, code, name) in [
        (libc::SIGINT, 130, "SIGINT"),
        (libc::SIGTERM, 143, "SIGTERM"),
    ] {
        let dir = TempDir::new();
        let script = dir.script(
            "pe.sh",
            r#"sleep 1000 & echo "$$ $!" > "$D/pid.$NVSHMEMRS_PE.tmp"; mv "$D/pid.$NVSHMEMRS_PE.tmp" "$D/pid.$NVSHMEMRS_PE"; wait"#,
        );
        let running = start(&["-n", "2", &script], Some("0,1"));
        dir.wait_for_files(&["pid.0", "pid.1"]);
        let launcher = libc::pid_t::try_from(running.child.id()).unwrap();
        let sent = std::time::Instant::now();
        // SAFETY: `launcher` is our own child, which has not been reaped yet.
        assert_eq!(unsafe { libc::kill(launcher, signal) }, 0);
        let done = running.finish();
        eprintln!(
            "{name}: launcher ended {:?} after the signal",
            sent.elapsed()
        );
        assert_eq!(done.code, Some(code));
        assert!(sent.elapsed() < GUARANTEE);
        assert!(
            done.stderr.contains(&format!("received {name}")),
            "{}",
            done.stderr
        );
        assert_all_gone(&dir.pids(&["pid.0", "pid.1"]));
    }
}

#[test]
fn a_missing_program_is_reported() {
    let done = run(&["-n", "2", "/nonexistent/program"], Some("0,1"));
    assert_eq!(done.code, Some(127));
    assert!(
        done.stderr
            .contains("could not start PE 0 as `/nonexistent/program`")
    );
}

#[test]
fn the_library_reports_each_pe() {
    let two = NonZeroUsize::new(2).unwrap();
    // Two PEs per GPU so that any machine with a GPU has room; the output is not prefixed and
    // there is none, to keep the test's own output clean.
    let outcome = Launch::new("sh")
        .args([
            "-c",
            r#"[ "$NVSHMEMRS_PE" = 1 ] && exit 5; exec sleep 1000"#,
        ])
        .n_pes(two)
        .pes_per_gpu(two)
        .prefix_output(false)
        .run()
        .unwrap();
    assert_eq!(outcome.ending, Ending::PeFailed { pe: 1 });
    assert_eq!(outcome.exit_code(), 5);
    assert_eq!(outcome.pes[1].end, PeEnd::Exited(5));
    assert!(!outcome.pes[1].stopped_by_launcher);
    assert_eq!(outcome.pes[0].end, PeEnd::Signaled(libc::SIGTERM));
    assert!(outcome.pes[0].stopped_by_launcher);
    assert!(outcome.elapsed < GUARANTEE);
}

/// The lines NVSHMEM's proxy printed on the GPU before its `exit` hung (the real ones start with
/// NVSHMEM's build path).
const NVSHMEM_CAUSE: &str = "ucx.cpp:nvshmemt_ucx_local_amo:837: AMO 8 not supported with the \
                             current configuration (GDRCopy Disabled)";
const NVSHMEM_ABORT: &str =
    "proxy.cpp:process_channel_amo:622: aborting due to error in process_channel_dma";

#[test]
fn a_pe_that_hangs_after_nvshmem_aborts_is_ended_with_nvshmems_status() {
    let dir = TempDir::new();
    // PE 1 prints NVSHMEM's lines and then hangs, as NVSHMEM's `exit` does in its teardown; PE 0
    // waits for it, as its peer in a barrier would.
    let script = dir.script(
        "pe.sh",
        &format!(
            r#"
echo $$ > "$D/pid.$NVSHMEMRS_PE.tmp"; mv "$D/pid.$NVSHMEMRS_PE.tmp" "$D/pid.$NVSHMEMRS_PE"
if [ "$NVSHMEMRS_PE" = 1 ]; then
    echo "{NVSHMEM_CAUSE}" >&2
    echo "" >&2
    echo "{NVSHMEM_ABORT}" >&2
fi
exec sleep 1000
"#
        ),
    );
    // The time limit only bounds a launcher that misses the abort.
    let done = run(&["--timeout", "10", "-n", "2", &script], Some("0,1"));
    assert_eq!(done.code, Some(255));
    // 2 s of grace for the PE to exit by itself, then SIGTERM, which ends it at once.
    assert!(
        done.elapsed >= Duration::from_secs(2) && done.elapsed < Duration::from_secs(4),
        "took {:?}",
        done.elapsed
    );
    assert_all_gone(&dir.pids(&["pid.0", "pid.1"]));
    for needle in [
        &format!(
            "nvshmemrun: PE 1 did not exit by itself within 2s after NVSHMEM aborted: \
             \"{NVSHMEM_ABORT}\" (NVSHMEM's exit hangs in its teardown), so the launcher ended it \
             (killed by signal 15 (SIGTERM)); ended the other PEs still running (0)"
        ),
        &format!("\n    [pe 1] {NVSHMEM_CAUSE}\n"),
        "PE 0: killed by signal 15 (SIGTERM) (stopped by the launcher)\n",
    ] {
        assert!(done.stderr.contains(needle), "missing {needle:?}");
    }
}

#[test]
fn a_pe_that_exits_after_nvshmem_aborts_keeps_its_status_and_names_the_cause() {
    let dir = TempDir::new();
    let script = dir.script(
        "pe.sh",
        &format!(
            r#"
[ "$NVSHMEMRS_PE" = 0 ] && exec sleep 1000
echo "{NVSHMEM_ABORT}" >&2
exit 255
"#
        ),
    );
    let done = run(&["-n", "2", &script], Some("0,1"));
    assert_eq!(done.code, Some(255));
    assert!(done.elapsed < GUARANTEE, "took {:?}", done.elapsed);
    let needle = format!(
        "nvshmemrun: PE 1 exited with status 255 after NVSHMEM aborted: \"{NVSHMEM_ABORT}\"; ended the other PEs still running (0)"
    );
    assert!(done.stderr.contains(&needle), "missing {needle:?}");
}

#[test]
fn a_pe_that_only_mentions_an_abort_is_left_running() {
    let dir = TempDir::new();
    // Longer than the grace the launcher gives an aborted PE, with room for a slow machine.
    let script = dir.script(
        "pe.sh",
        r#"
echo "aborting the retry loop after an error in process 3" >&2
echo "abort: nothing to do; exiting... later" >&2
echo "init.cu:1034: non-zero status: 7 nvshmem detect topo failed " >&2
sleep 3.5
echo "finished"
"#,
    );
    let done = run(&["-n", "2", &script], Some("0,1"));
    assert_eq!(done.code, Some(0));
    assert!(done.elapsed >= Duration::from_millis(3500));
    for pe in 0..2 {
        assert_eq!(done.stdout_of(pe), ["finished"]);
    }
}
