//! Subcommands that live in their own files.

pub mod test;
