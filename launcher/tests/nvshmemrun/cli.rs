//! The command line: usage errors and the default PE count.

use crate::common::run;

#[test]
fn usage_errors_exit_2_and_say_what_to_do() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-n", "0", "true"],
            "`-n 0`: the PE count must be a whole number of at least 1",
        ),
        (
            &["-n", "abc", "true"],
            "`-n abc`: the PE count must be a whole number of at least 1",
        ),
        (&["-n", "-3", "true"], "`-n -3`"),
        (
            &["--pes-per-gpu", "0", "true"],
            "the PEs per GPU must be a whole number",
        ),
        (
            &["--timeout", "never", "true"],
            "the timeout must be a positive number of seconds",
        ),
        (&["-n", "2"], "no program given"),
        (&[], "no program given"),
        (&["--frobnicate", "true"], "unknown flag `--frobnicate`"),
    ];
    for (args, needle) in cases {
        let done = run(args, Some("0,1"));
        assert_eq!(done.code, Some(2), "{args:?}");
        assert!(done.stderr.contains(needle), "{args:?}: {}", done.stderr);
        assert!(done.stderr.contains("nvshmemrun --help"), "{args:?}");
        assert!(done.stdout.is_empty());
    }
}

#[test]
fn help_prints_usage() {
    let done = run(&["--help"], None);
    assert_eq!(done.code, Some(0));
    assert!(done.stdout.contains("usage: nvshmemrun"));
}

#[test]
fn flags_after_the_program_are_the_programs() {
    let done = run(
        &[
            "-n",
            "1",
            "--",
            "sh",
            "-c",
            "printf '%s\\n' \"$1\"",
            "sh",
            "-n",
        ],
        Some("0"),
    );
    assert_eq!(done.code, Some(0));
    assert_eq!(done.stdout, "[pe 0] -n\n");
}

#[test]
fn the_pe_count_defaults_to_the_visible_gpus() {
    let count = "echo $NVSHMEMRS_N_PES";
    let done = run(&["sh", "-c", count], Some("0,1"));
    assert_eq!(done.code, Some(0));
    assert_eq!(
        done.stdout.lines().filter(|l| l.ends_with("] 2")).count(),
        2
    );

    let done = run(&["--pes-per-gpu", "3", "sh", "-c", count], Some("0,1"));
    assert_eq!(done.code, Some(0));
    assert_eq!(
        done.stdout.lines().filter(|l| l.ends_with("] 6")).count(),
        6
    );

    let done = run(&["sh", "-c", count], Some(""));
    assert_eq!(done.code, Some(2));
    assert!(
        done.stderr.contains("CUDA_VISIBLE_DEVICES is empty"),
        "{}",
        done.stderr
    );
}

#[test]
fn more_pes_than_gpus_need_sharing() {
    let done = run(&["-n", "4", "true"], Some("0"));
    assert_eq!(done.code, Some(2));
    assert!(
        done.stderr.contains(
            "-n 4 needs 4 GPUs at --pes-per-gpu 1 but 1 is visible; pass --pes-per-gpu 4 to share GPUs"
        ),
        "{}",
        done.stderr
    );
    let done = run(&["-n", "4", "--pes-per-gpu", "4", "true"], Some("0"));
    assert_eq!(done.code, Some(0));
}
