//! What reflection gives: per module ([`ModuleInfo`]) and per entry point
//! ([`EntryPoint`]) its workgroup size, resources and spec constants. The
//! values pass between stages, so they live on the ground floor,
//! [`crate::model::entry`]; this path keeps naming them.

pub use crate::model::entry::*;
