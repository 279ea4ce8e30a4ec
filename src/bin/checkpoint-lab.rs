//! The native command line; everything it does is in `checkpoint_lab::cli`.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    checkpoint_lab::cli::main()
}

/// The command line is native only; a wasm32 build of the tests compiles this stub.
#[cfg(target_arch = "wasm32")]
fn main() {}
