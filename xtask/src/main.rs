//! `cargo xtask`: the developer tooling (setup, fuzz, bench, generators,
//! verifications) next to the product commands of the `repdiff` library,
//! which it runs in-process so `cargo xtask conformance` needs no install.
//! This binary is also the worker supervised oracles are started as
//! (`/proc/self/exe worker NAME`), hence `worker` among its commands.
//!
//! Errors here are `String`s on purpose: every failure of a tool is printed
//! as it is and ends the command; no caller acts on its kind (the product
//! commands it runs return `repdiff::error::Error`).

mod bench;
mod bench_census;
mod bench_direct;
mod bench_serve;
mod circles;
mod doc_paths;
mod fuzz;
mod gen_metamorphic;
mod lockfiles;
mod output;
#[cfg(test)]
mod prints;
mod verify_cpython315;
mod verify_google;

use clap::{Parser, Subcommand};
use repdiff::cli::{exit_code, Global, Host, Product};

/// Developer tooling and the product commands of repdiff.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Product(Product),
    /// The nightly differential fuzz job (--minutes N --jobs J) and its toolchain's pieces
    #[command(long_about = fuzz::HELP)]
    Fuzz(fuzz::Opts),
    /// Worker overhead per oracle and rfc9309 vs google, measured in one run
    #[command(long_about = bench::HELP)]
    Bench(bench::Opts),
    /// Regenerate cases/corpus/metamorphic.yaml (--check: verify it is current)
    #[command(long_about = gen_metamorphic::HELP)]
    GenMetamorphic(gen_metamorphic::Opts),
    /// Compare the cpython-3.15 oracle with CPython 3.15.0rc1 itself (pyodide)
    #[command(name = "verify-cpython315", long_about = verify_cpython315::HELP)]
    VerifyCpython315(verify_cpython315::Opts),
    /// Build and run Google's own robots_test.cc against the google oracle's robots.cc
    #[command(long_about = verify_google::HELP)]
    VerifyGoogle,
    /// List the import circles between each crate's modules; fail on one not pinned
    Circles,
    /// Check that every repository path the Markdown docs name exists
    DocPaths,
}

const HOST: Host = Host {
    program: "cargo xtask",
    ensure_setup,
};

/// Setup before a command.
fn ensure_setup(program: &'static str, needs: repdiff::shared::Needs) {
    repdiff::setup::ensure_as(program, needs);
}

fn main() {
    engine::worker::stop_workers_on_signal();
    let cli = Cli::parse();
    // `apply` installs repdiff's logger at the level of -q/-v: xtask's own
    // commands speak through `log` like the product's (stdout is output.rs's).
    let result = cli.global.apply().and_then(|()| match cli.command {
        Command::Product(p) => p.run(&HOST),
        Command::Fuzz(o) => Ok(fuzz::main(o)?),
        Command::Bench(o) => Ok(bench::main(o)?),
        Command::GenMetamorphic(o) => Ok(gen_metamorphic::main(o)?),
        Command::VerifyCpython315(o) => Ok(verify_cpython315::main(o)?),
        Command::VerifyGoogle => Ok(verify_google::main()?),
        Command::Circles => Ok(circles::main(&repdiff::paths::root())),
        Command::DocPaths => Ok(doc_paths::main(&repdiff::paths::root())),
    });
    std::process::exit(exit_code(result));
}
