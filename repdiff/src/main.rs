//! The installed `repdiff` command: the product commands, with `--root` and
//! `--cache` so it runs outside a checkout, and shell completions.

use clap::{CommandFactory, Parser, Subcommand};
use repdiff::cli::{exit_code, Global, Host, Product};

/// Differential conformance of robots.txt parsers against RFC 9309.
#[derive(Parser)]
#[command(name = "repdiff", version, propagate_version = true)]
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
    /// Print a completion script for SHELL (e.g. `repdiff completions bash > /etc/bash_completion.d/repdiff`)
    Completions { shell: clap_complete::Shell },
}

const HOST: Host = Host {
    program: "repdiff",
    ensure_setup: say_what_setup_lacks,
};

/// This binary cannot run setup (that is developer tooling, in xtask), so
/// it says what is missing before the oracles report themselves unavailable
/// one by one.
fn say_what_setup_lacks() {
    let cache = oracles::cache_dir();
    let empty = std::fs::read_dir(&cache).map_or(true, |mut d| d.next().is_none());
    if empty {
        eprintln!(
            "warning: no setup cache at {} (missing or empty): the Python, C++ and external oracles need it. \
             Run `cargo xtask setup` in a repdiff checkout, then pass --cache DIR (or set \
             REPDIFF_CACHE) to its .cache/; the pure-Rust oracles run without it.",
            cache.display()
        );
    }
    let missing = oracles::missing_native_code();
    if !missing.is_empty() {
        eprintln!(
            "warning: this repdiff was built without {} (setup had not fetched its sources): \
             run `cargo xtask setup`, then install again",
            missing.join(", ")
        );
    }
}

fn main() {
    engine::worker::stop_workers_on_signal();
    let cli = Cli::parse();
    let result = cli.global.apply().and_then(|()| match cli.command {
        Command::Product(p) => p.run(&HOST),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "repdiff",
                &mut std::io::stdout(),
            );
            Ok(0)
        }
    });
    std::process::exit(exit_code(result));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }

    #[test]
    fn usage_errors_are_status_2() {
        assert_eq!(super::exit_code(Err(repdiff::cli::Usage("bad".into()))), 2);
    }
}
