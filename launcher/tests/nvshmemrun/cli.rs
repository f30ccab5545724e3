//! The command line: usage errors and the default PE count.

use crate::common::run;

#[test]
fn usage_errors_exit_2_and_say_what_to_do() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-n", "0", "true"],
            "invalid value '0' for '--n-pes <N>': expected a whole number from 1 to 4096",
        ),
        (
            &["-n", "abc", "true"],
            "invalid value 'abc' for '--n-pes <N>': expected a whole number from 1 to 4096",
        ),
        (&["-n", "-3", "true"], "'-3' for '--n-pes <N>'"),
        (
            &["--pes-per-gpu", "0", "true"],
            "'0' for '--pes-per-gpu <K>': expected a whole number",
        ),
        (
            &["--timeout", "never", "true"],
            "'never' for '--timeout <S>': expected a positive number of seconds",
        ),
        (&["-n", "2"], "required arguments were not provided"),
        (&[], "<PROGRAM [ARGS]>"),
        (
            &["--frobnicate", "true"],
            "unexpected argument '--frobnicate'",
        ),
    ];
    for (args, needle) in cases {
        let done = run(args, Some("0,1"));
        assert_eq!(done.code, Some(2), "{args:?}");
        assert!(done.stderr.contains(needle), "{args:?}: {}", done.stderr);
        assert!(done.stderr.contains("try '--help'"), "{args:?}");
        assert!(done.stdout.is_empty());
    }
}

#[test]
fn help_and_version_print_to_stdout_and_exit_0() {
    let done = run(&["--help"], None);
    assert_eq!(done.code, Some(0));
    assert!(done.stdout.contains("Usage: nvshmemrun"), "{}", done.stdout);
    let done = run(&["--version"], None);
    assert_eq!(done.code, Some(0));
    assert_eq!(
        done.stdout,
        format!("nvshmemrun {}\n", env!("CARGO_PKG_VERSION"))
    );
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
