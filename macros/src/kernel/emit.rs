//! What `#[kernel]` generates for a function that keeps its rules: the device form, the check of
//! the parameter types and the launch descriptor.

use super::DEVICE_ABI;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::{
    Attribute, FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Type, parse_quote,
};

/// The compiler's error for a parameter type that is not `Copy` (`{Self}` is the type).
pub(super) const NOT_COPY_MESSAGE: &str = "kernel parameter type `{Self}` is not `Copy`";
/// The label of that error, at the parameter's type.
pub(super) const NOT_COPY_LABEL: &str = "kernel parameters must be `Copy`";
/// The note of that error.
pub(super) const NOT_COPY_NOTE: &str = "kernel arguments are copied byte for byte into the launch; pass \
    device memory as `*const T`/`*mut T`, and give structs passed by value \
    `#[derive(Clone, Copy)]` and `#[repr(C)]`";

/// Emits the checked kernel: the device form, which exists only when compiling for `nvptx64`, and
/// the `Copy` check, which runs on every target.
///
/// There is no host form: a kernel's body uses device-only functions (thread indices, NVSHMEM
/// calls), and nothing on the host may call it. A kernel crate still compiles on the host, so that
/// its plain index arithmetic can be unit-tested there.
pub(super) fn emit(kernel: &ItemFn) -> TokenStream2 {
    let mut device = kernel.clone();
    device.vis = parse_quote!(pub);
    device.sig.abi = Some(syn::Abi {
        extern_token: Default::default(),
        name: Some(syn::LitStr::new(DEVICE_ABI, Span::call_site())),
    });
    device.sig.output = ReturnType::Default;
    device
        .attrs
        .insert(0, parse_quote!(#[cfg(target_arch = "nvptx64")]));
    device.attrs.push(parse_quote!(#[unsafe(no_mangle)]));
    split_slices(&mut device);

    let param_check = param_check(kernel);
    let descriptor = descriptor(kernel);
    quote! {
        #device
        #param_check
        #descriptor
    }
}

/// Passes each `SymmetricSlice<T>` parameter as two PTX parameters, its address (`*mut T`) and its
/// length, and rebuilds the slice at the top of the body. A pointer kernel parameter is known to
/// point into global memory, so the loads and stores through it are global ones; the same pointer
/// inside a by-value struct (which rustc passes as integers) would give generic, slower ones. The
/// host's typed launch passes the same two words for a `SliceParam<T>` (its `IntoParam` for a
/// borrowed `SymmetricBuffer<T>`).
fn split_slices(device: &mut ItemFn) {
    let mut rebuilt = Vec::new();
    let inputs = std::mem::take(&mut device.sig.inputs);
    for input in inputs {
        let FnArg::Typed(param) = &input else {
            device.sig.inputs.push(input);
            continue;
        };
        let (Some(element), Pat::Ident(name)) = (slice_element(&param.ty), &*param.pat) else {
            device.sig.inputs.push(input);
            continue;
        };
        let ident = &name.ident;
        let start = syn::Ident::new(&format!("{ident}__start"), ident.span());
        let len = syn::Ident::new(&format!("{ident}__len"), ident.span());
        device.sig.inputs.push(parse_quote!(#start: *mut #element));
        device.sig.inputs.push(parse_quote!(#len: usize));
        let mutability = &name.mutability;
        let ty = &param.ty;
        rebuilt.push(quote! {
            // SAFETY: the launch passes a symmetric slice's two words here (the host's
            // `IntoParam` for `SliceParam`, which the slice's invariant holds for).
            #[allow(unused_mut)]
            let #mutability #ident: #ty =
                unsafe { ::nvshmem_gpu::SymmetricSlice::from_raw_parts(#start, #len) };
        });
    }
    if !rebuilt.is_empty() {
        // The two words' names join the slice's name and the part with `__`; the pointer comes
        // from the launch alone (the host's typed launch), which is what makes dereferencing it
        // in a safe entry point sound.
        device
            .attrs
            .push(parse_quote!(#[allow(non_snake_case, clippy::not_unsafe_ptr_arg_deref)]));
        let body = &device.block;
        *device.block = parse_quote!({
            #(#rebuilt)*
            #body
        });
    }
}

/// `T` when `ty` is written `SymmetricSlice<T>` (with any path before it).
fn slice_element(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "SymmetricSlice" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(element) if args.args.len() == 1 => Some(element),
        _ => None,
    }
}

/// The kernel's launch descriptor: a unit struct named after the kernel in `UpperCamelCase` that
/// implements `nvshmem_gpu::KernelDescriptor` (entry name, parameter types, the crate and the
/// parameters' codes as this build sees them) and, for a safe kernel, `nvshmem_gpu::SafeKernel`,
/// on every target, so that the host's typed launch can name it; and, in the device build, the
/// kernel's signature global, the same facts as the device build sees them.
fn descriptor(kernel: &ItemFn) -> TokenStream2 {
    let cfgs: Vec<&Attribute> = kernel
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect();
    let name = &kernel.sig.ident;
    let entry = name.to_string();
    let descriptor = syn::Ident::new(&upper_camel_case(&entry), name.span());
    let types = param_types(kernel);
    let names = param_names(kernel);
    let doc = format!("The launch descriptor of the kernel `{entry}` (made by `#[kernel]`).");
    let is_safe = kernel.sig.unsafety.is_none();
    let safe = is_safe.then(|| {
        quote! {
            #(#cfgs)*
            // SAFETY: the kernel is a safe fn whose parameters the check above requires to be
            // `KernelParam`s.
            unsafe impl ::nvshmem_gpu::SafeKernel for #descriptor {}
        }
    });
    let launch_types = types.iter().map(|ty| {
        if is_safe {
            quote! { <#ty as ::nvshmem_gpu::KernelParam>::Launch }
        } else {
            quote! { #ty }
        }
    });
    let symbol = syn::Ident::new(
        &format!("{}{entry}", nvshmem_abi::SIGNATURE_SYMBOL_PREFIX),
        name.span(),
    );
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        #[derive(Debug, Clone, Copy)]
        pub struct #descriptor;
        #(#cfgs)*
        // SAFETY: the descriptor's facts are the kernel's, as this build compiles it.
        unsafe impl ::nvshmem_gpu::KernelDescriptor for #descriptor {
            const NAME: &'static str = #entry;
            type Params = (#(#launch_types,)*);
            const CRATE: &'static str = ::core::env!("CARGO_PKG_NAME");
            const VERSION: &'static str = ::core::env!("CARGO_PKG_VERSION");
            const PARAM_NAMES: &'static [&'static str] = &[#(#names),*];
            const PARAM_CODES: &'static [::nvshmem_gpu::__kernel::ParamCode] = {
                #[allow(unused_imports)]
                use ::nvshmem_gpu::__kernel::LayoutCode as _;
                &[#(::nvshmem_gpu::__kernel::ParamCodeOf::<#types>::CODE),*]
            };
        }
        #safe
        #(#cfgs)*
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            const LEN: usize = ::nvshmem_gpu::__kernel::signature_len(
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::CRATE,
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::VERSION,
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::PARAM_CODES,
            );
            // The device build's view of the kernel, which the host compares with the descriptor
            // of its own build before a typed launch.
            #[unsafe(no_mangle)]
            #[allow(non_upper_case_globals)]
            static #symbol: [u8; LEN] = ::nvshmem_gpu::__kernel::encode_signature(
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::CRATE,
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::VERSION,
                <#descriptor as ::nvshmem_gpu::KernelDescriptor>::PARAM_CODES,
            );
        };
    }
}

/// `snake_case` → `UpperCamelCase`.
pub(super) fn upper_camel_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect()
}

/// The kernel's parameter types, in order.
fn param_types(kernel: &ItemFn) -> Vec<&Type> {
    kernel
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(param) => Some(&*param.ty),
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The kernel's parameter names, in order (a pattern other than a name is rejected before).
fn param_names(kernel: &ItemFn) -> Vec<String> {
    kernel
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(param) => match &*param.pat {
                Pat::Ident(name) => Some(name.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// A constant item that compiles only if every parameter type is `Copy` (an `unsafe` kernel) or
/// `nvshmem_gpu::KernelParam` (a safe kernel, which may take only types every launch keeps valid);
/// nothing for a kernel without parameters.
///
/// The compiler's error names the parameter's type, at the parameter's own span (the type's tokens
/// keep their spans), with the message of the `#[diagnostic::on_unimplemented]` of the trait. The
/// item carries the kernel's own `#[cfg]` attributes, so that it disappears together with the
/// kernel.
fn param_check(kernel: &ItemFn) -> TokenStream2 {
    let cfgs = kernel
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"));
    let types = param_types(kernel);
    if types.is_empty() {
        return TokenStream2::new();
    }
    if kernel.sig.unsafety.is_none() {
        // A slice is passed as two words, anything else as one: a type that the name test does not
        // see as a slice (an alias) must be one that is passed as one word.
        let checks = types.iter().map(|ty| {
            if slice_element(ty).is_some() {
                quote! { kernel_param::<#ty>(); }
            } else {
                quote! { single_param::<#ty>(); }
            }
        });
        return quote! {
            #(#cfgs)*
            const _: () = {
                #[allow(dead_code)]
                const fn kernel_param<T: ::nvshmem_gpu::KernelParam>() {}
                #[allow(dead_code)]
                const fn single_param<T: ::nvshmem_gpu::SingleParam>() {}
                #(#checks)*
            };
        };
    }
    quote! {
        #(#cfgs)*
        const _: () = {
            #[diagnostic::on_unimplemented(
                message = #NOT_COPY_MESSAGE,
                label = #NOT_COPY_LABEL,
                note = #NOT_COPY_NOTE
            )]
            trait CopyParam: ::core::marker::Copy {}
            impl<T: ::core::marker::Copy> CopyParam for T {}
            const fn kernel_param<T: CopyParam>() {}
            #(kernel_param::<#types>();)*
        };
    }
}
