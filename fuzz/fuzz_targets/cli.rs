//! Every command-line parser of the project, on any words: a parsed command line or clap's error,
//! never a panic. The first byte picks the program; the rest, split at NUL bytes, are its words
//! (any bytes, not only UTF-8).
#![no_main]

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

// The Jacobi runners' parsers, with the flags they share as `crate::flags`, as in their library.
// Included, not a dependency: `jacobi`'s build script needs ptxas and the nvptx target.
#[path = "../../examples/jacobi/src/flags.rs"]
#[allow(dead_code)]
mod flags;
// Included, not a dependency: `jacobi`'s build script needs ptxas and the nvptx target.
#[path = "../../examples/jacobi/src/args/rows.rs"]
mod jacobi;
// Included, not a dependency: `jacobi`'s build script needs ptxas and the nvptx target.
#[path = "../../examples/jacobi/src/args/grid.rs"]
mod jacobi2d_grid;

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
            let _ = flags::parse::<jacobi::Args>(&jacobi::RULES, args);
        }
        _ => {
            let _ = flags::parse::<jacobi2d_grid::Args>(&jacobi2d_grid::RULES, args);
        }
    }
});
