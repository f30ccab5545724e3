//! What the host and the kernels share about a launch: the types a safe kernel may take, the
//! launch descriptors `#[kernel]` emits, the element types of symmetric slices, and the signature
//! of each kernel's parameters, which the device build stores in the module and the host compares
//! with the descriptor's before a typed launch.
//!
//! Host and device compile a kernel crate separately (for the host's target and for
//! `nvptx64-nvidia-cuda`, with other features and profile), so a parameter type that depends on
//! `cfg` can differ between the two; and a module may come from another crate or version than the
//! descriptor. Each side therefore writes down what it compiled: every parameter type has a
//! [`ParamCode`] (the [`KernelParam`]s a closed set; other types of `unsafe` kernels their size and
//! alignment), the descriptor carries the host build's codes, and the device build stores its own
//! in the module global `nvshmemrs_signature_<kernel>` ([`SIGNATURE_SYMBOL_PREFIX`]), together
//! with the kernel crate's name and version.

use core::fmt;
use core::marker::PhantomData;

use crate::Team;

/// A type code of a kernel parameter, the same on host and device (see the module documentation).
///
/// ```
/// use nvshmem_abi::{KernelParam, ParamCode, SliceParam};
/// assert_eq!(<u64 as KernelParam>::CODE.to_string(), "u64");
/// assert_eq!(ParamCode::slice_of(<u8 as KernelParam>::CODE).to_string(), "SymmetricSlice<u8>");
/// assert_eq!(ParamCode::layout(16, 8).to_string(), "a type of 16 bytes aligned to 8");
/// # let _: Option<SliceParam<u8>> = None;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamCode(u32);

/// The code of a [`SymmetricSlice`-form](SliceParam) parameter is this bit and its element's code.
const SLICE_BIT: u32 = 0x100;
/// The code of a type known only by its layout (an `unsafe` kernel's other types) has this bit,
/// the size (up to [`LAYOUT_SIZE_LIMIT`]) shifted by 8, and the alignment's low byte.
const LAYOUT_BIT: u32 = 0x8000_0000;
/// Sizes from this one on share one code (no kernel parameter is that large).
const LAYOUT_SIZE_LIMIT: usize = 0x7f_ffff;

/// [`Team`]'s code; the numbers' and `bool`'s are in `scalar_params!`'s invocation, which also
/// writes the table of every scalar's code and name (`SCALARS`).
const TEAM_CODE: u32 = 14;

impl ParamCode {
    /// The code of a symmetric slice whose elements have the code `element`.
    pub const fn slice_of(element: ParamCode) -> ParamCode {
        ParamCode(SLICE_BIT | element.0)
    }

    /// The code of a type known only by its size and alignment.
    pub const fn layout(size: usize, align: usize) -> ParamCode {
        let size = if size > LAYOUT_SIZE_LIMIT {
            LAYOUT_SIZE_LIMIT
        } else {
            size
        };
        ParamCode(LAYOUT_BIT | (size as u32) << 8 | (align as u32 & 0xff))
    }

    /// The code as stored in a module's signature.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The code stored as `bits`.
    pub const fn from_bits(bits: u32) -> ParamCode {
        ParamCode(bits)
    }

    /// The name of the scalar with `code`, if one has it.
    fn scalar_name(code: u32) -> Option<&'static str> {
        SCALARS
            .iter()
            .find(|(scalar, _)| *scalar == code)
            .map(|(_, name)| *name)
    }
}

impl fmt::Display for ParamCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.0;
        if code & LAYOUT_BIT != 0 {
            let size = (code & !LAYOUT_BIT) >> 8;
            return write!(f, "a type of {size} bytes aligned to {}", code & 0xff);
        }
        if code & SLICE_BIT != 0
            && let Some(element) = ParamCode::scalar_name(code & !SLICE_BIT)
        {
            return write!(f, "SymmetricSlice<{element}>");
        }
        match ParamCode::scalar_name(code) {
            Some(name) => f.write_str(name),
            None => write!(f, "an unknown type (code {code:#x})"),
        }
    }
}

mod sealed {
    /// Implemented by the element types of [`super::for_each_element!`] only.
    pub trait Element {}
}

/// An element type of symmetric slices: `f32`, `f64`, `i8`…`i64`, `u8`…`u64`, `isize`, `usize`
/// (the table of [`for_each_element!`](crate::for_each_element)). Sealed; `nvshmem-gpu`'s
/// `Element`, which adds NVSHMEM's functions of each type, builds on it.
pub trait ElementType: KernelParam + sealed::Element + 'static {}

/// Invokes `$callback!` with the tokens after it, then every `Rust type => NVSHMEM type name` pair
/// of the element types of NVSHMEM's typed calls and of symmetric slices ([`ElementType`]).
///
/// ```
/// macro_rules! names {
///     ($($rust:ty => $c:ident),* $(,)?) => { [$(stringify!($c)),*] };
/// }
/// let names = nvshmem_abi::for_each_element!(names);
/// assert_eq!(names.len(), 12);
/// assert!(names.contains(&"ptrdiff"));
/// ```
#[macro_export]
macro_rules! for_each_element {
    ($callback:ident $($args:tt)*) => {
        $callback! {
            $($args)*
            f32 => float,
            f64 => double,
            i8 => int8,
            i16 => int16,
            i32 => int32,
            i64 => int64,
            u8 => uint8,
            u16 => uint16,
            u32 => uint32,
            u64 => uint64,
            isize => ptrdiff,
            usize => size,
        }
    };
}

/// A type a safe kernel may take as a parameter: every value the host's typed launch can pass is
/// valid in safe code.
///
/// # Safety
/// Every value of the type that a launch through `nvshmem-host`'s typed API can produce upholds the
/// type's invariants on the device for the whole launch; its layout is the same on host and device;
/// `CODE` is the type's own code and `Launch` its form in descriptors.
#[diagnostic::on_unimplemented(
    message = "a safe kernel cannot take `{Self}` as a parameter",
    label = "not a safe kernel parameter",
    note = "safe kernels take numbers, `bool`, `Team` and `SymmetricSlice<T>`; for raw pointers or \
            `SymmetricPtr`, declare the kernel `pub unsafe fn` and state its contract"
)]
pub unsafe trait KernelParam: Copy {
    /// The type's code in signatures.
    const CODE: ParamCode;
    /// The type as a launch descriptor lists it, and as the host's typed launch knows it: the type
    /// itself, or [`SliceParam<T>`] for a symmetric slice of `T`.
    type Launch;
}

/// A [`KernelParam`] passed as one PTX parameter: all of them but symmetric slices, which
/// `#[kernel]` passes as two (address and length) where its signature names them
/// `SymmetricSlice<T>`.
///
/// # Safety
/// As for [`KernelParam`], and the host passes the value as one kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a safe kernel cannot take `{Self}` as a parameter",
    label = "not a safe kernel parameter",
    note = "safe kernels take numbers, `bool`, `Team` and `SymmetricSlice<T>` (written so, not \
            through an alias); for raw pointers or `SymmetricPtr`, declare the kernel \
            `pub unsafe fn` and state its contract"
)]
pub unsafe trait SingleParam: KernelParam {}

macro_rules! scalar_params {
    ($($ty:ty => $code:literal),* $(,)?) => {
        $(
            // SAFETY: every bit pattern is a value (a `bool` is passed as one byte, 0 or 1), the
            // layout is the same on host and device, and the host passes it as one parameter.
            unsafe impl KernelParam for $ty {
                const CODE: ParamCode = ParamCode($code);
                type Launch = $ty;
            }
            // SAFETY: as above.
            unsafe impl SingleParam for $ty {}
        )*

        /// Every scalar's code and name: the numbers, `bool` and [`Team`]; the numbers are also
        /// the element types of symmetric slices.
        const SCALARS: [(u32, &str); [$($code),*].len() + 1] =
            [$(($code, stringify!($ty)),)* (TEAM_CODE, "Team")];
    };
}
scalar_params!(
    f32 => 1, f64 => 2, i8 => 3, i16 => 4, i32 => 5, i64 => 6, isize => 7,
    u8 => 8, u16 => 9, u32 => 10, u64 => 11, usize => 12, bool => 13,
);

// SAFETY: the host's typed launch passes only teams it holds (predefined or split, not destroyed),
// as one parameter.
unsafe impl KernelParam for Team {
    const CODE: ParamCode = ParamCode(TEAM_CODE);
    type Launch = Team;
}
// SAFETY: as above.
unsafe impl SingleParam for Team {}

macro_rules! elements {
    ($($rust:ty => $c:ident),* $(,)?) => { $(
        impl sealed::Element for $rust {}
        impl ElementType for $rust {}
    )* };
}
for_each_element!(elements);

/// A kernel parameter `SymmetricSlice<T>` as launch descriptors list it and the host's typed launch
/// fills it: two PTX parameters, the address of the first element (a `*mut T` into global memory)
/// then the element count (`usize`). A type only: it has no values, so nothing on the host can
/// hold, let alone dereference, a device slice.
pub struct SliceParam<T> {
    never: core::convert::Infallible,
    element: PhantomData<T>,
}

impl<T> fmt::Debug for SliceParam<T> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.never {}
    }
}

/// The launch descriptor of a kernel, which `#[kernel]` emits beside it (a unit struct named after
/// the kernel in `UpperCamelCase`): its PTX entry name, parameter types and signature, as the build
/// that compiled it (the host's) saw them.
///
/// # Safety
/// `NAME` is the PTX entry of a kernel of the crate `CRATE` at version `VERSION` whose parameters,
/// as this build compiled them, are `Params` (in their launch form), named `PARAM_NAMES` and coded
/// `PARAM_CODES`.
pub unsafe trait KernelDescriptor {
    /// The PTX entry name.
    const NAME: &'static str;
    /// The parameter types, as a tuple (each a [`KernelParam::Launch`] for a safe kernel).
    type Params;
    /// The name of the kernel crate (its `CARGO_PKG_NAME`).
    const CRATE: &'static str;
    /// The version of the kernel crate (its `CARGO_PKG_VERSION`).
    const VERSION: &'static str;
    /// The parameters' names, in order.
    const PARAM_NAMES: &'static [&'static str];
    /// The parameters' codes, in order.
    const PARAM_CODES: &'static [ParamCode];
}

/// A kernel declared without `unsafe`, all of whose parameters are [`KernelParam`]s: launching it
/// through the host's typed API is safe.
///
/// # Safety
/// The kernel's body is safe code (`#[kernel]` implements it only for `pub fn` kernels).
pub unsafe trait SafeKernel: KernelDescriptor {}

/// The code of the parameter type `T`, as `ParamCodeOf::<T>::CODE` in `#[kernel]`'s expansion:
/// [`KernelParam::CODE`] where `T` is one (an inherent constant, which path lookup prefers), else
/// `T`'s layout ([`LayoutCode`], a trait constant, which must be in scope).
#[doc(hidden)]
pub struct ParamCodeOf<T>(PhantomData<T>);

impl<T: KernelParam> ParamCodeOf<T> {
    /// `T`'s own code.
    pub const CODE: ParamCode = T::CODE;
}

/// The layout code of a parameter type that is no [`KernelParam`] (see [`ParamCodeOf`]).
#[doc(hidden)]
pub trait LayoutCode {
    /// The code of the type's size and alignment.
    const CODE: ParamCode;
}

impl<T> LayoutCode for ParamCodeOf<T> {
    const CODE: ParamCode = ParamCode::layout(size_of::<T>(), align_of::<T>());
}

/// The prefix of each kernel's signature global; the rest is the kernel's name.
pub const SIGNATURE_SYMBOL_PREFIX: &str = "nvshmemrs_signature_";

/// The first word of a signature: `NRS` and the format's version.
const SIGNATURE_MAGIC: u32 = u32::from_le_bytes(*b"NRS\x01");

/// The bytes of the signature of a kernel of crate `name` at `version` with parameters `codes`:
/// the magic word, the parameter count and each code (little-endian `u32`s), then the name's and
/// the version's length (one byte each, at most 255) and their bytes.
pub const fn signature_len(name: &str, version: &str, codes: &[ParamCode]) -> usize {
    4 * (2 + codes.len()) + 2 + name.len() + version.len()
}

/// The signature [`signature_len`] describes, for the static `#[kernel]` emits in the device build.
/// `N` is its `signature_len`; a name or version longer than 255 bytes fails the build.
pub const fn encode_signature<const N: usize>(
    name: &str,
    version: &str,
    codes: &[ParamCode],
) -> [u8; N] {
    let mut bytes = [0u8; N];
    write_signature(&mut bytes, name, version, codes);
    bytes
}

/// Writes the signature [`signature_len`] describes into `bytes`, which must be that long.
///
/// # Panics
/// Where `bytes` has another length, or the name or version is longer than 255 bytes.
pub const fn write_signature(bytes: &mut [u8], name: &str, version: &str, codes: &[ParamCode]) {
    assert!(bytes.len() == signature_len(name, version, codes));
    assert!(name.len() <= 255 && version.len() <= 255);
    let mut at = put_word(bytes, 0, SIGNATURE_MAGIC);
    at = put_word(bytes, at, codes.len() as u32);
    let mut i = 0;
    while i < codes.len() {
        at = put_word(bytes, at, codes[i].0);
        i += 1;
    }
    at = put_text(bytes, at, name);
    put_text(bytes, at, version);
}

/// Writes `word` at `at`; returns the offset after it.
const fn put_word(bytes: &mut [u8], at: usize, word: u32) -> usize {
    let word = word.to_le_bytes();
    let mut i = 0;
    while i < 4 {
        bytes[at + i] = word[i];
        i += 1;
    }
    at + 4
}

/// Writes `text`'s length byte and bytes at `at`; returns the offset after them.
const fn put_text(bytes: &mut [u8], at: usize, text: &str) -> usize {
    bytes[at] = text.len() as u8;
    let text = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        bytes[at + 1 + i] = text[i];
        i += 1;
    }
    at + 1 + text.len()
}

/// A kernel's signature as its module stores it ([`encode_signature`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature<'a> {
    /// The kernel crate's name.
    pub crate_name: &'a str,
    /// The kernel crate's version.
    pub crate_version: &'a str,
    codes: &'a [u8],
}

impl<'a> Signature<'a> {
    /// Reads the signature in `bytes`; `None` where they hold none of this format.
    ///
    /// ```
    /// use nvshmem_abi::{KernelParam, ParamCode, Signature, encode_signature, signature_len};
    /// const CODES: [ParamCode; 2] = [<u32 as KernelParam>::CODE, <bool as KernelParam>::CODE];
    /// const N: usize = signature_len("ring", "0.1.0", &CODES);
    /// let bytes: [u8; N] = encode_signature("ring", "0.1.0", &CODES);
    /// let signature = Signature::decode(&bytes).unwrap();
    /// assert_eq!((signature.crate_name, signature.crate_version), ("ring", "0.1.0"));
    /// assert!(signature.codes().eq(CODES));
    /// assert_eq!(Signature::decode(&bytes[..N - 1]), None);
    /// ```
    pub fn decode(bytes: &'a [u8]) -> Option<Signature<'a>> {
        let word = |at: usize| {
            let word = bytes.get(at..at + 4)?;
            Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        };
        if word(0)? != SIGNATURE_MAGIC {
            return None;
        }
        let count = usize::try_from(word(4)?).ok()?;
        let texts = count.checked_mul(4)?.checked_add(8)?;
        let codes = bytes.get(8..texts)?;
        let text = |at: usize| {
            let len = usize::from(*bytes.get(at)?);
            let text = core::str::from_utf8(bytes.get(at + 1..at + 1 + len)?).ok()?;
            Some((text, at + 1 + len))
        };
        let (crate_name, at) = text(texts)?;
        let (crate_version, end) = text(at)?;
        (end == bytes.len()).then_some(Signature {
            crate_name,
            crate_version,
            codes,
        })
    }

    /// The parameters' codes, in order.
    pub fn codes(&self) -> impl ExactSizeIterator<Item = ParamCode> + 'a {
        self.codes
            .chunks_exact(4)
            .map(|word| ParamCode(u32::from_le_bytes([word[0], word[1], word[2], word[3]])))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn a_kernel_param_has_its_code_and_another_type_its_layout() {
        use super::LayoutCode as _;
        assert_eq!(ParamCodeOf::<u8>::CODE.to_string(), "u8");
        assert_eq!(ParamCodeOf::<Team>::CODE.to_string(), "Team");
        assert_eq!(ParamCodeOf::<f64>::CODE, <f64 as KernelParam>::CODE);
        assert_eq!(ParamCodeOf::<*mut u8>::CODE, ParamCode::layout(8, 8));
        assert_eq!(ParamCodeOf::<[u16; 3]>::CODE, ParamCode::layout(6, 2));
    }

    #[test]
    fn codes_read_as_type_names() {
        for (i, (code, name)) in SCALARS.into_iter().enumerate() {
            assert_eq!(ParamCode(code).to_string(), name);
            assert!(
                SCALARS[..i].iter().all(|(other, _)| *other != code),
                "{name} shares its code"
            );
        }
        assert_eq!(
            ParamCode::slice_of(ParamCode(11)).to_string(),
            "SymmetricSlice<u64>"
        );
        assert_eq!(ParamCode(0x300).to_string(), "an unknown type (code 0x300)");
        let huge = ParamCode::layout(usize::MAX, 16).to_string();
        assert_eq!(huge, "a type of 8388607 bytes aligned to 16");
    }

    #[test]
    fn a_signature_reads_back_and_a_damaged_one_does_not() {
        const CODES: [ParamCode; 3] = [ParamCode(8), ParamCode(0x10b), ParamCode(14)];
        const N: usize = signature_len("kernels", "1.2.3", &CODES);
        let bytes: [u8; N] = encode_signature("kernels", "1.2.3", &CODES);
        let signature = Signature::decode(&bytes).unwrap();
        assert_eq!(signature.crate_name, "kernels");
        assert_eq!(signature.crate_version, "1.2.3");
        assert!(signature.codes().eq(CODES));
        let mut longer = [0u8; N + 1];
        longer[..N].copy_from_slice(&bytes);
        assert_eq!(Signature::decode(&longer), None);
        let mut other_magic = bytes;
        other_magic[3] = 2;
        assert_eq!(Signature::decode(&other_magic), None);
        let mut huge_count = bytes;
        huge_count[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(Signature::decode(&huge_count), None);
    }
}
