//! Checking a `#[kernel]` function and generating its device form and parameter check.

mod check;
mod emit;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream as TokenStream2;

/// The ABI a kernel gets on the device.
const DEVICE_ABI: &str = "ptx-kernel";

/// Expands `#[kernel]` with arguments `attr` on the function `item`.
///
/// Either returns the device form (for `nvptx64` only) and the `Copy` check of the parameters, or, when
/// the function breaks a rule, one `compile_error!` per broken rule and nothing else (emitting the
/// rejected function as well would only add rustc's own, less helpful, errors about it).
pub(crate) fn expand(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    match check::check(attr, item) {
        Ok(kernel) => emit::emit(&kernel),
        Err(error) => error.to_compile_error(),
    }
}
