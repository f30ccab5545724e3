//! The property tests of the command lines that every runner shares ([`shared_flag_tests`], which
//! each runner's module instantiates), and the helpers its own tests use.

use crate::flags::{MAX_PES, Options, Rules, parse};
use clap::{CommandFactory, Parser};
use nvshmem_halo::ProcessGrid;
use nvshmem_launch::cli::JobArgs;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::num::NonZeroUsize;
use std::time::Duration;

/// Splits a command line.
pub(crate) fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

/// Checks `test` on 256 values of `strategy` (a short run, for CI); on a failure, panics with
/// the smallest failing value proptest found.
pub(crate) fn property<S: Strategy>(
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(failure) = TestRunner::new(config).run(&strategy, test) {
        panic!("{failure}");
    }
}

/// [`parse`] with the runner's parser `A`; a refusal as the text clap prints.
pub(crate) fn parse_with<A: Parser + Into<Options>>(
    rules: &Rules,
    args: &[String],
) -> Result<Options, String> {
    parse::<A>(rules, args).map_err(|error| {
        assert_eq!(error.exit_code(), 2, "{error}");
        error.to_string()
    })
}

/// The names `A`'s `--variant` takes, the default first.
fn variants<A: CommandFactory>() -> Vec<String> {
    let command = A::command();
    let variant = command
        .get_arguments()
        .find(|arg| arg.get_id() == "variant")
        .expect("every runner takes --variant");
    let names: Vec<String> = variant
        .get_possible_values()
        .iter()
        .map(|value| value.get_name().to_string())
        .collect();
    let default = variant.get_default_values()[0].to_string_lossy();
    assert_eq!(names[0], default, "the default variant comes first");
    names
}

/// Whether `A` takes `--grid`.
fn takes_grid<A: CommandFactory>() -> bool {
    A::command()
        .get_arguments()
        .any(|arg| arg.get_id() == "grid")
}

/// Every flag either runner takes.
const FLAGS: [&str; 16] = [
    "-n",
    "--n-pes",
    "--pes-per-gpu",
    "--timeout",
    "--variant",
    "--nx",
    "--ny",
    "--iters",
    "--norm-every",
    "--check",
    "--stale-halo",
    "--block-x",
    "--rows-per-thread",
    "--append-result",
    "--grid",
    "--graph",
];

/// The flags that take a count or a size, none of which may be zero or negative.
const SIZE_FLAGS: [&str; 10] = [
    "-n",
    "--pes-per-gpu",
    "--timeout",
    "--nx",
    "--ny",
    "--iters",
    "--norm-every",
    "--block-x",
    "--rows-per-thread",
    "--graph",
];

/// Whether a usage error, as clap prints it, names what it is about (one of `args`: a flag, by
/// its long name too, or a value) and says what to pass instead: the values expected, the
/// usage, or a flag to use.
pub(crate) fn names_the_flag_and_the_fix(message: &str, args: &[String]) -> bool {
    let names = args.iter().any(|arg| {
        let spellings = match arg.as_str() {
            "-n" | "--n-pes" => vec!["-n", "--n-pes"],
            _ => vec![arg.as_str()],
        };
        spellings.iter().any(|flag| {
            message.contains(&format!("'{flag}")) || message.starts_with(&format!("error: {flag} "))
        })
    });
    // Clap reads `-inf` as the short flags `-i`, `-n`, `-f` and names the first it lacks.
    let unexpected = message
        .strip_prefix("error: unexpected argument '")
        .and_then(|rest| rest.split_once('\''))
        .is_some_and(|(part, _)| args.iter().any(|arg| arg.contains(part)));
    let fix = [
        "expected ",
        " is not in ",
        "[possible values: ",
        "Usage: ",
        "; use ",
        "a value is required",
    ]
    .iter()
    .any(|fix| message.contains(fix));
    (names || unexpected) && fix && message.contains("try '--help'")
}

/// Values at the edges of what the flags take: zero, signs, overflow, infinities, NaN, junk.
const EDGE_VALUES: [&str; 17] = [
    "0",
    "-1",
    "1",
    "3",
    "4294967296",
    "18446744073709551616",
    "1e400",
    "inf",
    "-inf",
    "NaN",
    "0.5",
    "",
    "x",
    "0x1",
    "99999x99999",
    "2x3",
    "--nx",
];

/// A flag's value: numbers of every size and sign, variants, grids and junk.
fn value(variants: Vec<String>) -> impl Strategy<Value = String> + use<> {
    prop_oneof![
        3 => (1u32..70_000).prop_map(|v| v.to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<u64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| v.to_string()),
        1 => select(EDGE_VALUES.to_vec()).prop_map(String::from),
        1 => select(variants),
        1 => "[0-9]{1,5}x[0-9]{1,5}",
        // Junk without control characters, which clap leaves out of its messages (escape
        // sequences whole) so that they cannot drive the terminal.
        1 => "[^\\p{Cc}]{0,8}",
    ]
}

/// A command line: mostly flags with values, so that parsing gets past the first few, and some
/// stray words.
fn command_line(variants: Vec<String>) -> impl Strategy<Value = Vec<String>> + use<> {
    let item = prop_oneof![
        6 => (select(FLAGS.to_vec()), value(variants.clone()))
            .prop_map(|(flag, value)| vec![flag.to_string(), value]),
        1 => select(FLAGS.to_vec()).prop_map(|flag| vec![flag.to_string()]),
        1 => value(variants).prop_map(|word| vec![word]),
    ];
    proptest::collection::vec(item, 0..8).prop_map(|items| items.concat())
}

/// Arbitrary command lines never panic, and every one refused is explained: the message names
/// the flag (or the value, or the unknown argument) and says what to pass. Every flag is also
/// tried with every edge value.
pub(crate) fn any_command_line_parses_or_is_explained<A: Parser + Into<Options>>(rules: &Rules) {
    let explained = |args: &[String]| match parse_with::<A>(rules, args) {
        Err(message) if !names_the_flag_and_the_fix(&message, args) => {
            Err(TestCaseError::fail(format!("{message:?} for {args:?}")))
        }
        _ => Ok(()),
    };
    for flag in FLAGS {
        for value in EDGE_VALUES {
            explained(&[flag.to_string(), value.to_string()]).unwrap();
        }
    }
    property(command_line(variants::<A>()), |args| explained(&args));
}

/// Valid options, for `A`, and the flags that ask for them, in any order.
fn valid_options<A: CommandFactory>(
    rules: &Rules,
) -> impl Strategy<Value = (Options, Vec<String>)> + use<A> {
    let grid = if takes_grid::<A>() {
        proptest::option::of((1usize..=3, 1usize..=3)).boxed()
    } else {
        Just(None).boxed()
    };
    let jobs = (
        proptest::option::of(1usize..=8),
        proptest::option::of(1usize..=8),
        proptest::option::of(1u64..=100_000),
        grid,
        proptest::option::of("[a-zA-Z0-9./_-]{1,20}"),
    );
    let problem = (
        select(variants::<A>()),
        0usize..=4096,
        0usize..=4096,
        1u32..=100_000,
        1u32..=100,
        any::<(bool, bool)>(),
        1u32..=32,
        1u32..=64,
    );
    let single_launch = rules.single_launch;
    let no_graph = rules.no_graph;
    // A graph of `norm_every × m` iterations, replayed `c` times.
    let graph_request = proptest::option::of((1u32..=4, 1u32..=50));
    (jobs, problem, graph_request)
        .prop_flat_map(move |(jobs, problem, graph_request)| {
            let (n, pes_per_gpu, timeout, grid, append_result) = jobs;
            let (variant, nx, ny, iters, norm_every, (check, stale), warps, rows_per_band) =
                problem;
            // With a grid, `-n` must be its size; every grid fits 11 x 11 cells and up.
            let n_pes = grid
                .map_or(n, |(px, py)| n.map(|_| px * py))
                .and_then(NonZeroUsize::new);
            let graph = graph_request
                .filter(|_| no_graph.iter().all(|(name, _)| *name != variant))
                .map(|(m, c)| (norm_every * m, c));
            let iters = graph.map_or(iters, |(k, c)| k * c);
            // Asked for only where it is accepted.
            let stale_halo = stale
                && check
                && iters >= 2
                && !single_launch.contains(&variant.as_str())
                && n_pes.is_none_or(|n| n.get() >= 2);
            let options = Options {
                job: JobArgs {
                    n_pes,
                    pes_per_gpu: pes_per_gpu.and_then(NonZeroUsize::new),
                    timeout: timeout.map(Duration::from_secs),
                    mps: false,
                },
                variant,
                graph: graph.map(|(k, _)| k),
                nx: 11 + nx,
                ny: 11 + ny,
                iters,
                norm_every,
                check,
                stale_halo,
                block_x: 32 * warps,
                rows_per_band,
                grid: grid.map(|(px, py)| ProcessGrid { px, py }),
                append_result,
            };
            let flags = flags_of(&options);
            (Just(options), Just(flags).prop_shuffle())
        })
        .prop_map(|(options, flags)| (options, flags.concat()))
}

/// The flags that ask for `options`, one group per flag.
fn flags_of(options: &Options) -> Vec<Vec<String>> {
    let pair = |flag: &str, value: String| vec![flag.to_string(), value];
    let mut flags = vec![
        pair("--variant", options.variant.clone()),
        pair("--nx", options.nx.to_string()),
        pair("--ny", options.ny.to_string()),
        pair("--iters", options.iters.to_string()),
        pair("--norm-every", options.norm_every.to_string()),
        pair("--block-x", options.block_x.to_string()),
        pair("--rows-per-thread", options.rows_per_band.to_string()),
    ];
    let job = &options.job;
    flags.extend(job.n_pes.map(|n| pair("-n", n.to_string())));
    flags.extend(
        job.pes_per_gpu
            .map(|k| pair("--pes-per-gpu", k.to_string())),
    );
    flags.extend(
        job.timeout
            .map(|t| pair("--timeout", t.as_secs().to_string())),
    );
    flags.extend(
        options
            .grid
            .map(|g| pair("--grid", format!("{}x{}", g.px, g.py))),
    );
    flags.extend(options.graph.map(|k| pair("--graph", k.to_string())));
    flags.extend(
        options
            .append_result
            .clone()
            .map(|f| pair("--append-result", f)),
    );
    if options.check {
        flags.push(vec!["--check".to_string()]);
    }
    if options.stale_halo {
        flags.push(vec!["--stale-halo".to_string()]);
    }
    flags
}

/// Valid options written as flags, in any order, parse back to the same options.
pub(crate) fn valid_flags_round_trip<A: Parser + Into<Options>>(rules: &Rules) {
    property(valid_options::<A>(rules), |(options, flags)| {
        prop_assert_eq!(parse_with::<A>(rules, &flags), Ok(options));
        Ok(())
    });
}

/// Zero and negative counts and sizes (and sides below 3), more PEs than interior cells, and
/// unknown variants are refused, naming the flag and the fix.
pub(crate) fn bad_sizes_pe_counts_and_variants_are_refused<A: Parser + Into<Options>>(
    rules: &Rules,
) {
    let refused = |args: &[String]| -> Result<String, TestCaseError> {
        let message = parse_with::<A>(rules, args)
            .err()
            .ok_or_else(|| TestCaseError::fail(format!("{args:?} was accepted")))?;
        prop_assert!(names_the_flag_and_the_fix(&message, args), "{message:?}");
        Ok(message)
    };
    property(
        (select(SIZE_FLAGS.to_vec()), i64::MIN..=0),
        |(flag, value)| {
            refused(&[flag.to_string(), value.to_string()])?;
            Ok(())
        },
    );
    property((select(vec!["--nx", "--ny"]), 1usize..3), |(flag, side)| {
        refused(&[flag.to_string(), side.to_string()])?;
        Ok(())
    });
    // At most 31 x 31 interior cells, fewer than MAX_PES.
    let too_many_pes = (3usize..=33, 3usize..=33).prop_flat_map(|(nx, ny)| {
        let cells = (nx - 2) * (ny - 2);
        (Just(nx), Just(ny), cells + 1..=MAX_PES)
    });
    property(too_many_pes, |(nx, ny, n)| {
        let message = refused(&args(&format!("--nx {nx} --ny {ny} -n {n}")))?;
        prop_assert!(
            message.starts_with(&format!("error: -n {n}: ")),
            "{message:?}"
        );
        Ok(())
    });
    property(MAX_PES + 1..=usize::MAX, |n| {
        refused(&args(&format!("-n {n}")))?;
        Ok(())
    });
    let known = variants::<A>();
    let unknown = "[a-z-]{0,12}".prop_filter("a variant", move |v| !known.contains(v));
    property(unknown, |variant| {
        let message = refused(&["--variant".to_string(), variant])?;
        let list = format!("[possible values: {}]", variants::<A>().join(", "));
        prop_assert!(message.contains(&list), "{message:?}");
        Ok(())
    });
}

/// `--help` exits 0 and names every flag; `--version` exits 0.
pub(crate) fn help_names_every_flag_and_version_exits_0<A: Parser + Into<Options>>(rules: &Rules) {
    nvshmem_launch::cli::assert_help_and_version::<A>();
    let text = parse::<A>(rules, ["--help"]).unwrap_err().to_string();
    for flag in FLAGS {
        let taken = flag != "--grid" || takes_grid::<A>();
        assert_eq!(text.contains(flag), taken, "{flag} in\n{text}");
    }
}

/// The `#[test]` functions every runner shares, written into the calling test module for
/// `$args` (the runner's parser) and `$rules` (its `&Rules`).
macro_rules! shared_flag_tests {
    ($args:ty, $rules:expr) => {
        #[test]
        fn any_command_line_parses_or_is_explained() {
            $crate::tests::any_command_line_parses_or_is_explained::<$args>($rules);
        }

        #[test]
        fn valid_flags_round_trip() {
            $crate::tests::valid_flags_round_trip::<$args>($rules);
        }

        #[test]
        fn bad_sizes_pe_counts_and_variants_are_refused() {
            $crate::tests::bad_sizes_pe_counts_and_variants_are_refused::<$args>($rules);
        }

        #[test]
        fn help_names_every_flag_and_version_exits_0() {
            $crate::tests::help_names_every_flag_and_version_exits_0::<$args>($rules);
        }

        #[test]
        fn shared_flags_parse_and_bad_ones_are_usage_errors() {
            $crate::tests::shared_flags_parse_and_bad_ones_are_usage_errors::<$args>($rules);
        }
    };
}
pub(crate) use shared_flag_tests;

/// Checks the flags every runner shares against `rules`.
pub(crate) fn shared_flags_parse_and_bad_ones_are_usage_errors<A: Parser + Into<Options>>(
    rules: &Rules,
) {
    let parse = |line: &str| parse_with::<A>(rules, &args(line));
    let variants = variants::<A>();
    let variant = &variants[variants.len() - 1];
    let o = parse(&format!(
        "--variant {variant} --nx 64 --ny 40 --iters 7 --norm-every 3 --check"
    ))
    .unwrap();
    assert_eq!(&o.variant, variant);
    assert_eq!(
        (o.nx, o.ny, o.iters, o.norm_every, o.check),
        (64, 40, 7, 3, true)
    );
    let defaults = parse("").unwrap();
    assert_eq!(defaults.variant, variants[0]);
    assert_eq!(
        (
            defaults.nx,
            defaults.ny,
            defaults.iters,
            defaults.norm_every
        ),
        (16384, 16384, 1000, 1)
    );
    assert_eq!(defaults.tiling().block_x, 128);
    assert_eq!(defaults.tiling().rows_per_band, 8);
    for bad in [
        "--nx 0",
        "--ny -5",
        "--nx 2",
        "--iters 0",
        "--norm-every 0",
        "--variant nope",
        "--block-x 100",
        "-n 5 --ny 6 --nx 3",
        "--frobnicate",
        "--nx",
    ] {
        assert!(parse(bad).is_err(), "{bad} was accepted");
    }
    let error = parse("--variant nope").unwrap_err();
    assert!(error.contains(&variants.join(", ")), "{error}");
    let stale = |flags: &str| parse(&format!("--stale-halo {flags}"));
    let plantable = &variants[0];
    assert!(stale(&format!("--check --iters 2 -n 2 --variant {plantable}")).is_ok());
    for (flags, fix) in [
        ("--iters 5", "use it with --check"),
        ("--check --iters 1", "use --iters 2 or more"),
        ("--check -n 1", "use -n 2 or more"),
    ] {
        let error = stale(flags).unwrap_err();
        assert!(
            error.starts_with("error: --stale-halo ") && error.contains(fix),
            "{error}"
        );
    }
    for variant in rules.single_launch {
        let error = stale(&format!("--check --variant {variant}")).unwrap_err();
        assert!(error.contains("use another --variant"), "{error}");
    }
    let graph = |flags: &str| parse(&format!("--graph {flags}"));
    let o = graph("10 --iters 200 --norm-every 5").unwrap();
    assert_eq!((o.graph, o.iters), (Some(10), 200));
    for (flags, fix) in [
        ("7 --iters 20", "use --iters 21, or a K that divides 20"),
        (
            "6 --iters 24 --norm-every 4",
            "use --graph 8 and --iters a multiple of it",
        ),
    ] {
        let error = graph(flags).unwrap_err();
        assert!(error.starts_with("error: --graph "), "{error}");
        assert!(error.contains(fix), "{error}");
    }
    for (variant, why) in rules.no_graph {
        let error = graph(&format!("1 --variant {variant}")).unwrap_err();
        let use_instead = format!("{why}; use --variant {}", rules.graphable);
        assert!(error.contains(&use_instead), "{error}");
    }
}
