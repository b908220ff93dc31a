//! Serves one [`vulkan_reference::Session`] on stdin and stdout, as `halc
//! __vulkan-reference` does: the child process a `Place::Child` session
//! talks to, for programs that have no serving mode of their own (the
//! crate's tests run sessions through it).

fn main() -> std::process::ExitCode {
    match vulkan_reference::serve(std::io::stdin().lock(), std::io::stdout().lock()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vulkan-reference serve: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
