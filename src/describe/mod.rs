//! What an executable holds, decoded from the file itself: the reflection
//! JSON ([`reflection`], the versioned contract for build systems and host
//! code) and the text `halc inspect` prints ([`inspect`]).

pub mod inspect;
pub mod reflection;
