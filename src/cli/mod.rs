//! Subcommands that live in their own files.

pub mod check;
pub mod diff;
pub mod test;
