//! Starting a selection of the roster: each oracle in process or as a
//! supervised worker (engine::worker), all side by side in threads, since
//! an interpreter or a JVM takes a second to greet and libFuzzer's fork
//! mode starts the whole line-up again in every child job.

use super::manifest::External;
use super::Roster;
use engine::oracle::{Oracle, Unavailable};
use engine::worker::{Limits, StartError, StartFailure, Supervised};

/// Where a started oracle runs (the fuzz loop's lanes are chosen by it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// In this process, on the caller's thread: the Rust and C++ built-ins
    /// (under libFuzzer's coverage, in a fuzz target).
    Inline,
    /// In this process, on the embedded interpreter: the Python built-ins,
    /// which the fuzz loop gives a thread of their own.
    Python,
    /// A worker process of its own: the external oracles and
    /// `--oracle-cmd`s always, the built-ins when asked for as workers.
    Worker,
}

/// How the built-ins of a selection run.
#[derive(Clone, Copy, Debug)]
pub enum Builtins<'a> {
    /// Their adapters in this process: fast, but a crash takes the caller
    /// down (the fuzz loop wants exactly that; `--in-process` accepts it).
    InProcess,
    /// Each as a supervised worker `exe worker NAME` (or its harness binary,
    /// [`Roster::worker_command`]): a crash or hang is one cell.
    Workers {
        /// The program whose `worker NAME` serves them: the caller's own
        /// binary, which links the same adapters.
        exe: &'a str,
    },
}

/// In-process constructors the roster does not know (the product's fake
/// `chaos` oracles), asked first for each built-in name in process.
pub type Makers<'a> = &'a (dyn Fn(&str) -> Option<Box<dyn Oracle>> + Sync);

/// What to start, and how.
pub struct Request<'a> {
    /// The oracles, in the order wanted; empty: every registered one
    /// ([`Roster::names`]), then every one of `extra`.
    pub names: &'a [String],
    /// `--oracle-cmd` oracles ([`Roster::oracle_cmds`]) the names may use.
    pub extra: &'a [External],
    pub builtins: Builtins<'a>,
    pub limits: Limits,
    /// Workers leave explanations out of their answers: a caller that
    /// reads outcomes only (the fuzz loop, which replays a finding with
    /// them later) saves their cost on every call.
    pub workers_skip_explanations: bool,
    pub makers: Option<Makers<'a>>,
    /// The program that runs setup (`repdiff`, `cargo xtask`), for the fix
    /// line of an oracle that did not start; `None`: the engine's generic
    /// fix lines, for a caller that has no setup to point at.
    pub program: Option<&'a str>,
}

/// A selection, started: the oracles that run, in the order asked, and
/// the ones that could not start, each with its fix.
pub struct Started {
    pub oracles: Vec<(Box<dyn Oracle>, Place)>,
    pub unavailable: Vec<Unavailable>,
}

/// How one selected oracle is started.
enum Plan<'r> {
    Builtin(&'r str),
    External {
        oracle: &'r External,
        /// Registered in a manifest (setup installs it), not an
        /// `--oracle-cmd` of the user's.
        registered: bool,
    },
}

impl Plan<'_> {
    fn name(&self) -> &str {
        match self {
            Plan::Builtin(n) => n,
            Plan::External { oracle, .. } => &oracle.name,
        }
    }
}

type One = Result<(Box<dyn Oracle>, Place), Unavailable>;

impl Roster {
    /// Start `req`'s oracles, each in its own thread, and wait for all.
    pub fn start(&self, req: &Request) -> Started {
        let wanted: Vec<String> = if req.names.is_empty() {
            let mut all = self.names();
            all.extend(req.extra.iter().map(|e| e.name.clone()));
            all
        } else {
            req.names.to_vec()
        };
        let plans: Vec<Plan> = wanted.iter().map(|n| self.plan(n, req.extra)).collect();
        let results: Vec<One> = std::thread::scope(|s| {
            let handles: Vec<_> = plans
                .iter()
                .map(|plan| s.spawn(move || self.start_one(plan, req)))
                .collect();
            handles
                .into_iter()
                .zip(&plans)
                .map(|(h, plan)| {
                    h.join().unwrap_or_else(|_| {
                        Err(Unavailable {
                            oracle: plan.name().to_string(),
                            reason: "oracle constructor panicked".into(),
                            fix: String::new(),
                            then_setup: true,
                        })
                    })
                })
                .collect()
        });
        let mut started = Started {
            oracles: Vec::new(),
            unavailable: Vec::new(),
        };
        for r in results {
            match r {
                Ok(o) => started.oracles.push(o),
                Err(u) => started.unavailable.push(u),
            }
        }
        started
    }

    /// One oracle as a supervised worker, whatever it is (a built-in
    /// through `exe worker NAME` or its harness, an external through its
    /// manifest's command): for a caller that needs the worker itself, not
    /// just an [`Oracle`] (the bench reads its CPU time and restarts).
    pub fn supervise(
        &self,
        name: &str,
        exe: &str,
        limits: Limits,
        program: Option<&str>,
    ) -> Result<Supervised, Unavailable> {
        match self.plan(name, &[]) {
            Plan::Builtin(name) => self.builtin_worker(name, exe, limits),
            Plan::External { oracle, registered } => {
                external_worker(oracle, registered, limits, program)
            }
        }
    }

    fn plan<'r>(&'r self, name: &'r str, extra: &'r [External]) -> Plan<'r> {
        match self.external(name) {
            Some(oracle) => Plan::External {
                oracle,
                registered: true,
            },
            None => match extra.iter().find(|e| e.name == name) {
                Some(oracle) => Plan::External {
                    oracle,
                    registered: false,
                },
                None => Plan::Builtin(name),
            },
        }
    }

    fn start_one(&self, plan: &Plan, req: &Request) -> One {
        let (worker, place) = match (plan, req.builtins) {
            (Plan::External { oracle, registered }, _) => (
                external_worker(oracle, *registered, req.limits, req.program)?,
                Place::Worker,
            ),
            (Plan::Builtin(name), Builtins::Workers { exe }) => {
                (self.builtin_worker(name, exe, req.limits)?, Place::Worker)
            }
            (Plan::Builtin(name), Builtins::InProcess) => {
                return self.in_process(name, req);
            }
        };
        let mut worker: Box<dyn Oracle> = Box::new(worker);
        if req.workers_skip_explanations {
            worker.skip_explanations();
        }
        Ok((worker, place))
    }

    /// A built-in's adapter in this process (or the caller's maker of that
    /// name), placed by its runtime.
    fn in_process(&self, name: &str, req: &Request) -> One {
        if let Some(o) = req.makers.and_then(|make| make(name)) {
            return Ok((o, Place::Inline));
        }
        let Some(entry) = self.builtin(name) else {
            let fix = match req.program {
                Some(program) => format!("see `{program} oracles`"),
                None => "check the name".into(),
            };
            return Err(Unavailable {
                oracle: name.to_string(),
                reason: "unknown oracle".into(),
                fix,
                then_setup: false,
            });
        };
        let place = match entry.runtime {
            super::Runtime::Python => Place::Python,
            super::Runtime::Rust | super::Runtime::Google => Place::Inline,
        };
        (entry.make)().map(|o| (o, place))
    }

    /// A built-in served by `exe worker NAME` (or its harness binary); a
    /// failure the worker did not explain is setup's to repair.
    fn builtin_worker(
        &self,
        name: &str,
        exe: &str,
        limits: Limits,
    ) -> Result<Supervised, Unavailable> {
        Supervised::launch(name, self.worker_command(name, exe), Vec::new(), limits).map_err(
            |err| {
                let mut u = err.unavailable;
                if u.fix.is_empty() {
                    u.then_setup = true;
                }
                u
            },
        )
    }
}

/// An external oracle (a manifest's, or an `--oracle-cmd`) as a worker.
fn external_worker(
    e: &External,
    registered: bool,
    limits: Limits,
    program: Option<&str>,
) -> Result<Supervised, Unavailable> {
    match program {
        Some(program) => Supervised::launch(&e.name, e.argv(), e.envs(), limits)
            .map_err(|err| with_fix(err, e, registered, program)),
        None => Supervised::start_with_env(&e.name, e.argv(), e.envs(), limits),
    }
}

/// The fix line for an external worker that did not start, by what went
/// wrong and whose harness it is: setup installs a registered oracle, while
/// a `--oracle-cmd` harness is the user's own, so its fix is the protocol.
fn with_fix(err: StartError, e: &External, registered: bool, program: &str) -> Unavailable {
    let mut u = err.unavailable;
    let argv = e.argv().join(" ");
    u.fix = match (err.kind, registered) {
        (StartFailure::Unavailable, _) if !u.fix.is_empty() || u.then_setup => return u,
        (StartFailure::Unavailable | StartFailure::Exec, true) => {
            format!("{program} setup (it installs `{}`)", e.name)
        }
        (StartFailure::Protocol, true) => format!(
            "{program} setup; or run `{argv}` by hand: it must greet as docs/protocol.md says"
        ),
        (_, false) => format!(
            "`{argv}` is your --oracle-cmd harness: it must start and greet within the greeting \
             timeout as docs/protocol.md says (oracles/harness/example.py is a working one)"
        ),
    };
    u
}
