//! Checking a `#[kernel]` function and generating its device form and parameter check.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Signature, Type,
    Visibility, parse_quote,
};

/// The ABI a kernel gets on the device.
const DEVICE_ABI: &str = "ptx-kernel";

/// The compiler's error for a parameter type that is not `Copy` (`{Self}` is the type).
const NOT_COPY_MESSAGE: &str = "kernel parameter type `{Self}` is not `Copy`";
/// The label of that error, at the parameter's type.
const NOT_COPY_LABEL: &str = "kernel parameters must be `Copy`";
/// The note of that error.
const NOT_COPY_NOTE: &str = "kernel arguments are copied byte for byte into the launch; pass \
    device memory as `*const T`/`*mut T`, and give structs passed by value \
    `#[derive(Clone, Copy)]` and `#[repr(C)]`";

/// Expands `#[kernel]` with arguments `attr` on the function `item`.
///
/// Either returns the device form (for `nvptx64` only) and the `Copy` check of the parameters, or, when
/// the function breaks a rule, one `compile_error!` per broken rule and nothing else (emitting the
/// rejected function as well would only add rustc's own, less helpful, errors about it).
pub(crate) fn expand(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    match check(attr, item) {
        Ok(kernel) => emit(&kernel),
        Err(error) => error.to_compile_error(),
    }
}

/// Parses `item` and checks every rule, reporting all broken rules together.
fn check(attr: TokenStream2, item: TokenStream2) -> syn::Result<ItemFn> {
    let mut errors = Errors::default();
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(
            &attr,
            "#[kernel] takes no arguments; write `#[kernel]`",
        ));
    }
    let kernel: ItemFn = match syn::parse2(item) {
        Ok(kernel) => kernel,
        Err(error) => {
            return Err(errors.and(syn::Error::new(
                error.span(),
                format!("#[kernel] applies to a free function `pub fn name(...)` or `pub unsafe fn name(...)`: {error}"),
            )));
        }
    };
    check_attrs(&kernel.attrs, &mut errors);
    check_vis(&kernel.vis, &kernel.sig, &mut errors);
    check_signature(&kernel.sig, &mut errors);
    errors.finish().map(|()| kernel)
}

/// Rejects attributes that would clash with what `#[kernel]` adds, also where a `cfg_attr` adds
/// them: a symbol name other than the function's would let the descriptor name another entry.
fn check_attrs(attrs: &[Attribute], errors: &mut Errors) {
    for attr in attrs {
        for inner in attribute_paths(&attr.meta) {
            if inner.is_ident("no_mangle") || inner.is_ident("export_name") {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "#[kernel] already marks the function `#[unsafe(no_mangle)]`: the PTX entry \
                     name is the function's name; remove this attribute",
                ));
            } else if inner
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "kernel")
            {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "duplicate #[kernel] attribute",
                ));
            }
        }
    }
}

/// The paths of the attributes `meta` stands for: its own, the one inside `unsafe(...)` (which
/// parses as an attribute named `unsafe`), or those a `cfg_attr(predicate, ...)` may add.
fn attribute_paths(meta: &syn::Meta) -> Vec<syn::Path> {
    let nested = |list: &syn::MetaList| {
        list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )
        .map(|metas| metas.into_iter().collect::<Vec<_>>())
        .unwrap_or_default()
    };
    match meta {
        syn::Meta::List(list) if list.path.is_ident("unsafe") => {
            nested(list).iter().flat_map(attribute_paths).collect()
        }
        syn::Meta::List(list) if list.path.is_ident("cfg_attr") => nested(list)
            .iter()
            .skip(1)
            .flat_map(attribute_paths)
            .collect(),
        _ => vec![meta.path().clone()],
    }
}

/// Rejects `cfg` and `cfg_attr` on a parameter: the launch descriptor lists every parameter as
/// written, so one compiled out of the device form would shift every later argument of a launch
/// (a length read as an address).
fn check_param_attrs(attrs: &[Attribute], errors: &mut Errors) {
    for attr in attrs {
        let path = attr.path();
        if path.is_ident("cfg") || path.is_ident("cfg_attr") {
            errors.push(syn::Error::new_spanned(
                attr,
                "kernel parameters cannot be conditional: the host passes every parameter it \
                 sees, so the device and host parameter lists must agree; pass the value always, \
                 with the same type in the host and device builds (a typed launch refuses a \
                 kernel whose builds disagree)",
            ));
        }
    }
}

/// Requires plain `pub`: the kernel is an exported entry point, and both forms are emitted `pub`.
fn check_vis(vis: &Visibility, sig: &Signature, errors: &mut Errors) {
    let span = match vis {
        Visibility::Public(_) => return,
        Visibility::Restricted(restricted) => restricted.span(),
        Visibility::Inherited => sig.fn_token.span,
    };
    errors.push(syn::Error::new(
        span,
        format!(
            "a #[kernel] must be declared plain `pub`: it is an exported PTX entry point that the \
             host launches by name; write `pub {}fn {}(...)`",
            if sig.unsafety.is_some() {
                "unsafe "
            } else {
                ""
            },
            sig.ident
        ),
    ));
}

/// Checks the signature: qualifiers, generics, receiver, parameters and return type.
fn check_signature(sig: &Signature, errors: &mut Errors) {
    if let Some(constness) = &sig.constness {
        errors.push(syn::Error::new_spanned(
            constness,
            "a #[kernel] cannot be `const fn`: it runs on the device, launched by the host",
        ));
    }
    if let Some(asyncness) = &sig.asyncness {
        errors.push(syn::Error::new_spanned(
            asyncness,
            "a #[kernel] cannot be `async`: a kernel runs to completion on every thread it is \
             launched on",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            format!(
                "a #[kernel] must not name an ABI: #[kernel] makes it \
                 `extern \"{DEVICE_ABI}\"` when compiling for nvptx64; remove this"
            ),
        ));
    }
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "a #[kernel] cannot be generic (no type, const or lifetime parameters): a PTX entry \
             point has one concrete signature; write one kernel per type",
        ));
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(
            where_clause,
            "a #[kernel] cannot be generic or have a `where` clause: a PTX entry point has one \
             concrete signature",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            variadic,
            "a #[kernel] cannot be variadic: a PTX entry point has a fixed parameter list",
        ));
    }
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(receiver) => errors.push(syn::Error::new_spanned(
                receiver,
                "a #[kernel] is a free function and cannot take `self`; pass the data as \
                 parameters",
            )),
            FnArg::Typed(param) => {
                check_param_attrs(&param.attrs, errors);
                check_param_pattern(&param.pat, errors);
                check_param_type(&param.ty, errors);
            }
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && !is_unit(ty)
    {
        errors.push(syn::Error::new_spanned(
            &sig.output,
            "a #[kernel] cannot return a value; write results through a pointer argument",
        ));
    }
}

/// Accepts `name` and `mut name`, nothing else.
fn check_param_pattern(pat: &Pat, errors: &mut Errors) {
    let message = match pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => return,
        Pat::Wild(_) => {
            "kernel parameters must be named; write `_name: Type` for a parameter the kernel \
             does not use"
        }
        _ => {
            "kernel parameters must be plain identifiers (`name: Type` or `mut name: Type`); \
             destructure inside the body instead"
        }
    };
    errors.push(syn::Error::new_spanned(pat, message));
}

/// Rejects references and `impl Trait` anywhere in a parameter's type (other than inside a
/// function pointer type, whose own parameters are not kernel arguments). That the type is `Copy`
/// is checked by the compiler, through the code [`copy_check`] generates.
fn check_param_type(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::Reference(_) => errors.push(syn::Error::new_spanned(
            ty,
            "kernel parameters cannot be references; pass a raw pointer `*const T`/`*mut T` to \
             device memory",
        )),
        Type::ImplTrait(_) => errors.push(syn::Error::new_spanned(
            ty,
            "a #[kernel] cannot be generic: `impl Trait` parameters are not allowed; name a \
             concrete type",
        )),
        Type::Array(array) => check_param_type(&array.elem, errors),
        Type::Slice(slice) => check_param_type(&slice.elem, errors),
        Type::Ptr(ptr) => check_param_type(&ptr.elem, errors),
        Type::Group(group) => check_param_type(&group.elem, errors),
        Type::Paren(paren) => check_param_type(&paren.elem, errors),
        Type::Tuple(tuple) => {
            for elem in &tuple.elems {
                check_param_type(elem, errors);
            }
        }
        Type::Path(path) => {
            if let Some(qself) = &path.qself {
                check_param_type(&qself.ty, errors);
            }
            for segment in &path.path.segments {
                if let PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let GenericArgument::Type(ty) = arg {
                            check_param_type(ty, errors);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether `ty` is `()`.
fn is_unit(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Paren(paren) => is_unit(&paren.elem),
        Type::Group(group) => is_unit(&group.elem),
        _ => false,
    }
}

/// Emits the checked kernel: the device form, which exists only when compiling for `nvptx64`, and
/// the `Copy` check, which runs on every target.
///
/// There is no host form: a kernel's body uses device-only functions (thread indices, NVSHMEM
/// calls), and nothing on the host may call it. A kernel crate still compiles on the host, so that
/// its plain index arithmetic can be unit-tested there.
fn emit(kernel: &ItemFn) -> TokenStream2 {
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
fn upper_camel_case(name: &str) -> String {
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

/// Collects errors so that every broken rule is reported at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(errors) => errors.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// The errors collected so far followed by `error`.
    fn and(self, error: syn::Error) -> syn::Error {
        match self.0 {
            Some(mut errors) => {
                errors.combine(error);
                errors
            }
            None => error,
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                syn::Item::Const(item) if quote!(#item).to_string().contains("no_mangle") => {
                    Some(item)
                }
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
}
