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

/// Setup before a command sets up the checkout `--root` names.
const HOST: Host = Host {
    program: "repdiff",
    ensure_setup: repdiff::setup::ensure_as,
};

fn main() {
    // The logger before anything can say something (the signal handler's
    // warning, an error of the global flags): the default level until
    // `--quiet`/`--verbose` are applied.
    repdiff::logging::init(repdiff::logging::level(false, 0));
    engine::worker::stop_workers_on_signal();
    let cli = Cli::parse();
    let result = cli.global.apply().and_then(|()| match cli.command {
        Command::Product(p) => p.run(&HOST),
        Command::Completions { shell } => {
            // Into a buffer, then out: clap_complete panics on a closed pipe.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "repdiff", &mut script);
            repdiff::output::bytes(&script);
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
        assert_eq!(
            super::exit_code(Err(repdiff::cli::Usage("bad".into()).into())),
            2
        );
    }
}
