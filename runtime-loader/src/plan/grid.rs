//! How large a dispatch is, and the threadgroup count that follows.

/// How large the dispatch is.
///
/// Counts are `u32`, the type of everything a kernel sees of its grid
/// (`gl_GlobalInvocationID`, `gl_NumWorkGroups`, the generated
/// `THREADS_PER_THREADGROUP`), as of a Vulkan `vkCmdDispatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Total threads per dimension; the threadgroup count is the ceiling of
    /// this over the threadgroup size (the kernel must bounds-check).
    Threads([u32; 3]),
    /// Threadgroups per dimension.
    Threadgroups([u32; 3]),
}

impl Grid {
    /// Threadgroups per dimension for threadgroups of `threads`; `None` when
    /// a dimension has none.
    pub(super) fn threadgroups(self, threads: [u32; 3]) -> Option<[u64; 3]> {
        let threadgroups = match self {
            Grid::Threads(t) => {
                std::array::from_fn(|i| ceil_div(u64::from(t[i]), u64::from(threads[i])))
            }
            Grid::Threadgroups(g) => g.map(u64::from),
        };
        (!threadgroups.contains(&0)).then_some(threadgroups)
    }
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a / b + u64::from(a % b != 0)
}
