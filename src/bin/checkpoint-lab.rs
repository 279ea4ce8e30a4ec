//! The native command line; everything it does is in `checkpoint_lab::cli`.

fn main() -> std::process::ExitCode {
    checkpoint_lab::cli::main()
}
