//! MSL generation: the binding layout ([`layout()`]), SPIRV-Cross
//! ([`compile`]), the check of its output against the layout ([`check`]) and
//! the optional metallib build ([`metallib`]).

pub mod check;
pub mod compile;
pub mod layout;
pub mod metallib;
pub mod worker;

pub use compile::{
    generate, CrossError, GeneratedMsl, MslOptions, MslVersion, SPIRV_CROSS_VERSION,
};
pub use layout::{
    layout, layout_for, ArgumentBufferLayout, AtomicBufferLayout, BindingLayout, BindingMap,
    BindingModel, KernelLayout, LayoutError, LayoutOptions, Platform, PushConstantLayout, Tier,
};
