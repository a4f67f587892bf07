//! `cargo xtask`: the thin command line over the engine and the oracles.

mod bench;
mod bench_external;
mod census_cmd;
mod chaos;
mod check;
mod cli;
mod conformance;
mod fuzz;
mod gen_metamorphic;
mod http;
mod paths;
mod registry;
mod report_site;
mod select;
mod setup;
mod verify_cpython315;
mod verify_google;

const USAGE: &str = "\
usage: cargo xtask <command> [--help]

  setup         fetch and verify every third-party parser (idempotent)
  conformance   run the corpus through every oracle and triage against the ledger
  check         ask every oracle about one robots.txt, agent and URL (or one case)
  census        every oracle over real robots.txt files (protego's test data, a tar, WARC); `census merge DIR...`
  oracles       list every registered oracle and how it is started (--json)
  fuzz          the nightly differential fuzz job (--minutes N --jobs J); `fuzz minimize FINDING`
  bench         worker overhead per oracle and rfc9309 vs google, measured in one run
  gen-metamorphic  regenerate cases/corpus/metamorphic.yaml (--check: verify it is current)
  report        render the published site (reports/site/) from a run; `report diff OLD NEW`
  verify-cpython315  compare the cpython-3.15 oracle with CPython 3.15.0rc1 itself (pyodide)
  verify-google  build and run Google's own robots_test.cc against the google oracle's robots.cc";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or(&[]);
    let result = match args.first().map(String::as_str) {
        Some("setup") => {
            let ctx = setup::Ctx::new();
            let errors = setup::run_all(&ctx, true);
            for e in &errors {
                eprintln!("error: {e}");
            }
            Ok(if errors.is_empty() { 0 } else { 1 })
        }
        Some("conformance") => conformance::main(rest),
        Some("check") => check::main(rest),
        Some("census") => census_cmd::main(rest),
        Some("oracles") => select::list(rest),
        Some("fuzz") => fuzz::main(rest),
        Some("report") => report_site::main(rest),
        Some("bench") => bench::main(rest),
        Some("gen-metamorphic") => gen_metamorphic::main(rest),
        Some("verify-cpython315") => verify_cpython315::main(rest),
        Some("verify-google") => verify_google::main(rest),
        Some("worker") => Ok(select::worker(rest.first().map_or("", String::as_str))),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(0)
        }
        _ => Err(cli::Usage(USAGE.to_string())),
    };
    let code = match result {
        Ok(code) => code,
        Err(cli::Usage(message)) => {
            eprintln!("error: {message}");
            2
        }
    };
    std::process::exit(code);
}
