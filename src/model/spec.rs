//! Spec-constant values: given as text for a SpecId ([`SpecValue`]) and
//! baked into a module by [`crate::spirv::specialize()`] ([`Baked`]).

use serde::Serialize;

use super::entry::{ScalarType, ScalarValue};

/// A value given on the command line for a SpecId, still as text: it is
/// parsed by the constant's type once that is known.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SpecValue {
    /// SpecId.
    pub id: u32,
    /// Text as given (`true`, `-4`, `0x10`, `2.5`).
    pub text: String,
}

impl std::str::FromStr for SpecValue {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (id, text) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}`: expected ID=VALUE"))?;
        let id = id
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("`{s}`: spec constant id `{id}` is not a non-negative integer"))?;
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("`{s}`: missing value"));
        }
        Ok(SpecValue {
            id,
            text: text.to_string(),
        })
    }
}

/// A value baked into a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Baked {
    /// SpecId.
    pub id: u32,
    /// Type of the constant.
    pub ty: ScalarType,
    /// Bits (of the first declaration, for a [`frozen`](Baked::frozen)
    /// SpecId whose declarations have defaults of their own).
    pub value: ScalarValue,
    /// Fixed by halc at the declarations' own defaults, not by `--spec`:
    /// the SpecId sizes an array and is also read as a value (see
    /// [`array_size_conflicts`](crate::spirv::specialize::array_size_conflicts)).
    #[serde(skip)]
    pub frozen: bool,
    /// For a [`frozen`](Baked::frozen) SpecId, the distinct defaults of its
    /// declarations in module order (`local_size_x_id = 0` defaulting to 1
    /// beside `constant_id = 0` defaulting to 64 gives `[64, 1]` or
    /// `[1, 64]`); empty for a value given with `--spec`.
    #[serde(skip)]
    pub defaults: Vec<ScalarValue>,
}
