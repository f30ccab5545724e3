//! The expansion of `#[kernel]`: its forms, its descriptor, and every rule it reports.

use super::emit::{NOT_COPY_LABEL, NOT_COPY_MESSAGE, NOT_COPY_NOTE, upper_camel_case};
use super::expand;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Attribute, ItemFn, Visibility, parse_quote};

/// The items of an expansion that carry `#[cfg(target_arch = "nvptx64")]` (`nvptx: true`) or
/// `#[cfg(not(target_arch = "nvptx64"))]` (`nvptx: false`).
fn functions_for(expansion: &TokenStream2, nvptx: bool) -> Vec<ItemFn> {
    let file: syn::File = syn::parse2(expansion.clone()).expect("expansion parses as items");
    let wanted: Attribute = if nvptx {
        parse_quote! { #[cfg(target_arch = "nvptx64")] }
    } else {
        parse_quote! { #[cfg(not(target_arch = "nvptx64"))] }
    };
    file.items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Fn(function) => Some(function),
            _ => None,
        })
        .filter(|function| function.attrs.contains(&wanted))
        .collect()
}

fn has_attr(function: &ItemFn, attr: Attribute) -> bool {
    function.attrs.contains(&attr)
}

fn axpy() -> TokenStream2 {
    quote! {
        /// Computes `y = a * x + y`.
        #[inline(never)]
        pub unsafe fn axpy(a: f32, x: *const f32, mut y: *mut f32, n: usize) {
            let _ = (a, x, n);
            y = y.wrapping_add(0);
        }
    }
}

#[test]
fn device_form_is_an_exported_ptx_kernel() {
    let expansion = expand(TokenStream2::new(), axpy());
    let device = functions_for(&expansion, true);
    assert_eq!(device.len(), 1, "one device form in {expansion}");
    let device = &device[0];
    let abi = device.sig.abi.as_ref().and_then(|abi| abi.name.as_ref());
    assert_eq!(abi.map(syn::LitStr::value).as_deref(), Some("ptx-kernel"));
    assert!(has_attr(device, parse_quote! { #[unsafe(no_mangle)] }));
    assert!(device.sig.unsafety.is_some());
    assert!(matches!(device.vis, Visibility::Public(_)));
    assert_eq!(device.sig.ident, "axpy");
    assert_eq!(device.sig.inputs.len(), 4);
    // The user's attributes and doc comment are kept.
    assert!(has_attr(device, parse_quote! { #[inline(never)] }));
    assert!(has_attr(
        device,
        parse_quote! { #[doc = r" Computes `y = a * x + y`."] }
    ));
    assert!(!has_attr(device, parse_quote! { #[allow(dead_code)] }));
}

#[test]
fn no_host_form_exists() {
    let expansion = expand(TokenStream2::new(), axpy());
    assert!(
        functions_for(&expansion, false).is_empty(),
        "host form in {expansion}"
    );
    assert_eq!(
        functions_for(&expansion, true).len(),
        1,
        "device form in {expansion}"
    );
}

#[test]
fn exact_expansion() {
    let expansion = expand(
        TokenStream2::new(),
        quote! {
            /// Doc.
            pub unsafe fn k(p: *mut u32, n: usize) -> () {
                #![allow(unused_variables)]
                let _ = n;
            }
        },
    );
    let expected = quote! {
        #[cfg(target_arch = "nvptx64")]
        /// Doc.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn k(p: *mut u32, n: usize) {
            #![allow(unused_variables)]
            let _ = n;
        }
        const _: () = {
            #[diagnostic::on_unimplemented(
                message = #NOT_COPY_MESSAGE,
                label = #NOT_COPY_LABEL,
                note = #NOT_COPY_NOTE
            )]
            trait CopyParam: ::core::marker::Copy {}
            impl<T: ::core::marker::Copy> CopyParam for T {}
            const fn kernel_param<T: CopyParam>() {}
            kernel_param::<*mut u32>();
            kernel_param::<usize>();
        };
        #[doc = "The launch descriptor of the kernel `k` (made by `#[kernel]`)."]
        #[derive(Debug, Clone, Copy)]
        pub struct K;
        // SAFETY: the descriptor's facts are the kernel's, as this build compiles it.
        unsafe impl ::nvshmem_gpu::KernelDescriptor for K {
            const NAME: &'static str = "k";
            type Params = (*mut u32, usize,);
            const CRATE: &'static str = ::core::env!("CARGO_PKG_NAME");
            const VERSION: &'static str = ::core::env!("CARGO_PKG_VERSION");
            const PARAM_NAMES: &'static [&'static str] = &["p", "n"];
            const PARAM_CODES: &'static [::nvshmem_gpu::__kernel::ParamCode] = {
                #[allow(unused_imports)]
                use ::nvshmem_gpu::__kernel::LayoutCode as _;
                &[
                    ::nvshmem_gpu::__kernel::ParamCodeOf::<*mut u32>::CODE,
                    ::nvshmem_gpu::__kernel::ParamCodeOf::<usize>::CODE
                ]
            };
        }
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            const LEN: usize = ::nvshmem_gpu::__kernel::signature_len(
                <K as ::nvshmem_gpu::KernelDescriptor>::CRATE,
                <K as ::nvshmem_gpu::KernelDescriptor>::VERSION,
                <K as ::nvshmem_gpu::KernelDescriptor>::PARAM_CODES,
            );
            #[unsafe(no_mangle)]
            #[allow(non_upper_case_globals)]
            static nvshmemrs_signature_k: [u8; LEN] = ::nvshmem_gpu::__kernel::encode_signature(
                <K as ::nvshmem_gpu::KernelDescriptor>::CRATE,
                <K as ::nvshmem_gpu::KernelDescriptor>::VERSION,
                <K as ::nvshmem_gpu::KernelDescriptor>::PARAM_CODES,
            );
        };
    };
    assert_eq!(expansion.to_string(), expected.to_string());
}

#[test]
fn a_safe_kernel_checks_its_parameters_are_kernel_params_and_is_a_safe_kernel() {
    let expansion = expand(
        TokenStream2::new(),
        quote! { pub fn ring_block(data: SymmetricSlice<f32>, n: usize) {} },
    )
    .to_string();
    let param_check = quote! {
        const fn kernel_param<T: ::nvshmem_gpu::KernelParam>() {}
    }
    .to_string();
    assert!(expansion.contains(&param_check), "{expansion}");
    let safe = quote! { unsafe impl ::nvshmem_gpu::SafeKernel for RingBlock {} }.to_string();
    assert!(expansion.contains(&safe), "{expansion}");
    assert!(!expansion.contains("Copy {}"), "{expansion}");
}

#[test]
fn slices_are_passed_as_address_and_length() {
    let expansion = expand(
        TokenStream2::new(),
        quote! { pub fn k(n: u32, mut data: nvshmem_gpu::SymmetricSlice<f32>) {} },
    );
    let device = functions_for(&expansion, true)[0].clone();
    let inputs: Vec<String> = device
        .sig
        .inputs
        .iter()
        .map(|input| quote!(#input).to_string())
        .collect();
    assert_eq!(
        inputs,
        ["n : u32", "data__start : * mut f32", "data__len : usize"]
    );
    let body = quote!(#device).to_string();
    let rebuilt = quote! {
        let mut data: nvshmem_gpu::SymmetricSlice<f32> =
            unsafe { ::nvshmem_gpu::SymmetricSlice::from_raw_parts(data__start, data__len) };
    }
    .to_string();
    assert!(body.contains(&rebuilt), "{body}");
}

#[test]
fn an_unsafe_kernel_is_not_a_safe_kernel() {
    let expansion = expand(TokenStream2::new(), quote! { pub unsafe fn k(x: u8) {} });
    assert!(!expansion.to_string().contains("SafeKernel"));
}

#[test]
fn descriptors_are_named_in_upper_camel_case() {
    assert_eq!(upper_camel_case("ring_block"), "RingBlock");
    assert_eq!(
        upper_camel_case("jacobi_put_block_norm"),
        "JacobiPutBlockNorm"
    );
    assert_eq!(upper_camel_case("k"), "K");
    assert_eq!(upper_camel_case("_private__kernel_"), "PrivateKernel");
}

#[test]
fn no_copy_check_without_parameters() {
    let expansion = expand(TokenStream2::new(), quote! { pub unsafe fn k() {} });
    let file: syn::File = syn::parse2(expansion).unwrap();
    let device_only: Attribute = parse_quote! { #[cfg(target_arch = "nvptx64")] };
    assert!(!file.items.iter().any(
        |item| matches!(item, syn::Item::Const(check) if !check.attrs.contains(&device_only))
    ));
}

#[test]
fn the_device_build_stores_the_signature_of_each_parameter() {
    let expansion = expand(
        TokenStream2::new(),
        quote! {
            #[cfg(feature = "wide")]
            pub fn fill(data: SymmetricSlice<Word>, value: u32) {}
        },
    );
    let file: syn::File = syn::parse2(expansion).unwrap();
    let signature = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(item) if quote!(#item).to_string().contains("no_mangle") => Some(item),
            _ => None,
        })
        .expect("a signature global");
    assert!(
        signature
            .attrs
            .contains(&parse_quote! { #[cfg(feature = "wide")] })
    );
    assert!(
        signature
            .attrs
            .contains(&parse_quote! { #[cfg(target_arch = "nvptx64")] })
    );
    let text = quote!(#signature).to_string();
    assert!(text.contains("static nvshmemrs_signature_fill"), "{text}");
    // The codes come from the types, through the traits, not from their tokens: an alias whose
    // meaning depends on the target gets each build's own code.
    let descriptor = quote!(#file).to_string();
    for code in [
        quote! { ::nvshmem_gpu::__kernel::ParamCodeOf::<SymmetricSlice<Word> >::CODE },
        quote! { ::nvshmem_gpu::__kernel::ParamCodeOf::<u32>::CODE },
        quote! { &["data", "value"] },
    ] {
        assert!(
            descriptor.contains(&code.to_string()),
            "{descriptor} lacks {code}"
        );
    }
}

#[test]
fn cfg_attributes_also_guard_the_copy_check() {
    let expansion = expand(
        TokenStream2::new(),
        quote! {
            #[cfg(feature = "extra")]
            pub unsafe fn k(x: u8) {}
        },
    );
    let file: syn::File = syn::parse2(expansion).unwrap();
    let check = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(check) => Some(check),
            _ => None,
        })
        .expect("a copy check");
    assert!(
        check
            .attrs
            .contains(&parse_quote! { #[cfg(feature = "extra")] })
    );
}

/// Expands `item` under `#[kernel(attr)]`, expecting errors, and returns their messages.
fn errors(attr: TokenStream2, item: TokenStream2) -> Vec<String> {
    let mut messages = Vec::new();
    // Each error is `::core::compile_error! { "message" }`.
    for token in expand(attr, item) {
        if let proc_macro2::TokenTree::Group(group) = &token
            && let Some(proc_macro2::TokenTree::Literal(message)) =
                group.stream().into_iter().next()
        {
            let message: syn::LitStr = syn::parse_str(&message.to_string()).unwrap();
            messages.push(message.value());
        }
    }
    assert!(!messages.is_empty(), "expected errors");
    messages
}

fn one_error(attr: TokenStream2, item: TokenStream2) -> String {
    let messages = errors(attr, item);
    assert_eq!(messages.len(), 1, "{messages:#?}");
    messages.into_iter().next().unwrap()
}

fn none() -> TokenStream2 {
    TokenStream2::new()
}

/// Asserts that `#[kernel]` rejects an item with exactly one error containing `$expected`.
/// The item may start with `#[kernel(...)] ` to give the attribute arguments.
macro_rules! rejects {
    ($expected:literal, #[kernel($($attr:tt)*)] $($item:tt)*) => {{
        let message = one_error(quote! { $($attr)* }, quote! { $($item)* });
        let item = stringify!($($item)*);
        assert!(message.contains($expected), "{item}: {message:?} lacks {:?}", $expected);
    }};
    ($expected:literal, $($item:tt)*) => {
        rejects!($expected, #[kernel()] $($item)*)
    };
}

#[test]
fn rejects_each_broken_rule() {
    rejects!(
        "takes no arguments",
        #[kernel(grid = 1)]
        pub unsafe fn k() {}
    );
    rejects!("must be declared plain `pub`", unsafe fn k() {});
    rejects!("must be declared plain `pub`", pub(crate) unsafe fn k() {});
    rejects!(
        "cannot return a value",
        pub unsafe fn k() -> u32 {
            0
        }
    );
    rejects!("cannot be generic", pub unsafe fn k<T>() {});
    rejects!("cannot be generic", pub unsafe fn k<'a>() {});
    rejects!("cannot be generic", pub unsafe fn k<const N: usize>() {});
    rejects!(
        "`where` clause",
        pub unsafe fn k()
        where
            u8: Copy,
        {
        }
    );
    rejects!("cannot be generic", pub unsafe fn k(x: impl Copy) {});
    rejects!("cannot be `const fn`", pub const unsafe fn k() {});
    rejects!("cannot be `async`", pub async unsafe fn k() {});
    rejects!("must not name an ABI", pub unsafe extern "C" fn k() {});
    rejects!(
        "must not name an ABI",
        pub unsafe extern "ptx-kernel" fn k() {}
    );
    rejects!("cannot be variadic", pub unsafe fn k(x: u8, ...) {});
    rejects!("cannot take `self`", pub unsafe fn k(&self) {});
    rejects!("cannot take `self`", pub unsafe fn k(self) {});
    rejects!("plain identifiers", pub unsafe fn k((a, b): (u8, u8)) {});
    rejects!("plain identifiers", pub unsafe fn k(ref a: u8) {});
    rejects!("plain identifiers", pub unsafe fn k(a @ 0..=9: u8) {});
    rejects!("must be named", pub unsafe fn k(_: u8) {});
    rejects!("cannot be references", pub unsafe fn k(x: &u8) {});
    rejects!(
        "cannot be references",
        pub unsafe fn k(x: &'static mut [u8]) {}
    );
    rejects!(
        "cannot be references",
        pub unsafe fn k(x: Option<(&u8, u8)>) {}
    );
    rejects!(
        "cannot be references",
        pub unsafe fn k(x: [*const &u8; 2]) {}
    );
    rejects!(
        "already marks the function",
        #[unsafe(no_mangle)]
        pub unsafe fn k() {}
    );
    rejects!(
        "already marks the function",
        #[no_mangle]
        pub unsafe fn k() {}
    );
    rejects!(
        "already marks the function",
        #[export_name = "x"]
        pub unsafe fn k() {}
    );
    rejects!(
        "duplicate #[kernel]",
        #[nvshmem_gpu::kernel]
        pub unsafe fn k() {}
    );
    rejects!(
        "already marks the function",
        #[cfg_attr(target_arch = "nvptx64", export_name = "other")]
        pub fn k() {}
    );
    rejects!(
        "already marks the function",
        #[cfg_attr(all(), cfg_attr(all(), unsafe(no_mangle)))]
        pub fn k() {}
    );
    rejects!(
        "cannot be conditional",
        pub fn k(#[cfg(not(target_arch = "nvptx64"))] n: u32, data: SymmetricSlice<f32>) {}
    );
    rejects!(
        "cannot be conditional",
        pub unsafe fn k(#[cfg_attr(all(), cfg(any()))] n: u32) {}
    );
    rejects!("applies to a free function", pub struct S;);
}

#[test]
fn reports_every_broken_rule_at_once() {
    let messages = errors(
        quote! { x },
        quote! { fn k<T>(a: &T) -> T where T: Copy {} },
    );
    assert_eq!(messages.len(), 6, "{messages:#?}");
}

#[test]
fn accepts_unit_return_mut_parameters_and_function_pointers() {
    for item in [
        quote! { pub unsafe fn k() -> () {} },
        quote! { pub unsafe fn k(mut n: usize) {} },
        quote! { pub unsafe fn k(f: fn(&u8)) {} },
        quote! { pub unsafe fn k(p: *const [u8; 4], q: (u8, f64)) {} },
    ] {
        let expansion = expand(none(), item.clone());
        assert_eq!(
            functions_for(&expansion, true).len(),
            1,
            "{item} => {expansion}"
        );
    }
}
