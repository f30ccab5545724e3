//! Every command-line parser of the project, on any words: a parsed command line or clap's error,
//! never a panic. The first byte picks the program; the rest, split at NUL bytes, are its words
//! (any bytes, not only UTF-8).
#![no_main]

use clap::Parser;
use jacobi_args::{grid, rows};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fn words(bytes: &[u8]) -> Vec<OsString> {
    bytes
        .split(|&b| b == 0)
        .map(|w| OsString::from_vec(w.to_vec()))
        .collect()
}

fn parse<P: Parser>(name: &str, args: Vec<OsString>) {
    let _ = P::try_parse_from(std::iter::once(OsString::from(name)).chain(args));
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let args = words(rest);
    match which % 7 {
        0 => {
            let _ = nvshmem_launch::cli::parse(args);
        }
        1 => parse::<micro_args::Options>("micro", args),
        2 => parse::<ring_args::Args>("ring", args),
        3 => parse::<faults_args::Args>("faults", args),
        4 => parse::<interop_args::Options>("interop", args),
        5 => {
            let _ = jacobi_args::parse::<rows::Args>(&rows::RULES, args);
        }
        _ => {
            let _ = jacobi_args::parse::<grid::Args>(&grid::RULES, args);
        }
    }
});
