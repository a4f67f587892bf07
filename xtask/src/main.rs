//! `cargo xtask`: the thin command line over the engine and the oracles.

mod setup;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("setup") => {
            let ctx = setup::Ctx::new();
            let errors = setup::run_all(&ctx, true);
            for e in &errors {
                eprintln!("error: {e}");
            }
            if errors.is_empty() {
                0
            } else {
                1
            }
        }
        _ => {
            eprintln!("usage: cargo xtask <setup|conformance|check|bench|fuzz|report> ...");
            2
        }
    };
    std::process::exit(code);
}
