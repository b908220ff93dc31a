//! What executes halc's output: the Amber runner behind `halc test`
//! ([`amber`]) and the differential run behind `halc diff` ([`diff`]), both
//! on the CPU backend and the Vulkan reference.

pub mod amber;
#[cfg(all(unix, feature = "run"))]
pub(crate) mod buffers;
#[cfg(all(unix, feature = "run"))]
pub mod diff;
#[cfg(all(unix, feature = "run"))]
pub(crate) mod textures;
