//! What the safe layer's types reject, as compile errors (`compile/fail/`; `compile/pass/`: what
//! they accept): a PE that was not checked, a pointer where a symmetric slice belongs, a wrong
//! element type, a reference into symmetric memory, a raw parameter of a safe kernel, a raw call
//! without `unsafe`, a kernel parameter that exists on one target only, and a barrier or
//! collective made without the PE's `Leader` (or with a copied, forged or passed-in one). Each
//! case's expected error is in the `.stderr` file beside it (regenerate with `TRYBUILD=overwrite`
//! and review).

#[test]
fn the_safe_layer_rejects() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/compile/pass/*.rs");
    cases.compile_fail("tests/compile/fail/*.rs");
}
