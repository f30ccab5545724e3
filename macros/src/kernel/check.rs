//! The rules of `#[kernel]`: every one a function breaks is reported, at the part that breaks it.

use super::DEVICE_ABI;
use proc_macro2::TokenStream as TokenStream2;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Signature, Type,
    Visibility,
};

/// Parses `item` and checks every rule, reporting all broken rules together.
pub(super) fn check(attr: TokenStream2, item: TokenStream2) -> syn::Result<ItemFn> {
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
/// is checked by the compiler, through the code `emit::param_check` generates.
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
