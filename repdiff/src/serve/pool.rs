//! The workers every request shares: a fixed number of panels (each one
//! supervised worker per oracle, started once), fed from one bounded
//! queue. A full queue refuses at once instead of growing; a request that
//! waited past its time is answered `504` and its job, still queued, is
//! dropped unrun. A hanging or crashing parser is its worker's timeout or
//! crash: one cell of one request, and the supervisor restarts it for the
//! next.

use crate::lint::{self, panel::Panel};
use engine::oracle::{Answer, Query};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a request asks the panel to do.
pub enum Work {
    /// Every oracle's answer to each query on this body.
    Check {
        body: Vec<u8>,
        queries: Vec<Query>,
        /// Also each verdict's deciding line (`deciding`), derived where
        /// the library cannot tell: a call per candidate line per parser.
        lines: bool,
    },
    /// `repdiff lint` on this file, within `budget`.
    Lint {
        file: lint::input::File,
        agents: Vec<String>,
        urls: Vec<String>,
        budget: Duration,
        /// AI crawler tokens to ask `/` for (the page's toggle).
        ai_crawlers: Vec<String>,
        /// The ledger's measured causes per parser.
        known: Arc<lint::attribute::KnownCauses>,
    },
    /// `lint --before`'s change review of `old` against `new`.
    Review {
        old: lint::input::File,
        new: lint::input::File,
        agents: Vec<String>,
        urls: Vec<String>,
        expect_change: Vec<String>,
    },
}

/// What the panel did.
pub enum Done {
    /// Per oracle, in panel order, one answer per query, and (when asked)
    /// the deciding line of each.
    Checked {
        answers: Vec<Vec<Answer>>,
        deciding: Option<Vec<Vec<Option<crate::deciding::Found>>>>,
    },
    Linted(Box<lint::Report>),
    Reviewed(Box<lint::review::Review>),
}

/// Why a job was not done.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The queue is full: try again shortly (503).
    Busy,
    /// The request's time ran out before its answer (504).
    TimedOut,
    /// The panel failed on this job (a bug of ours, 500); it goes on
    /// serving the next.
    Failed,
}

struct Job {
    work: Work,
    /// Past this the requester has gone: the job is dropped, not run.
    deadline: Instant,
    reply: mpsc::Sender<Done>,
}

/// The shared panels and their queue.
pub struct Pool {
    queue: SyncSender<Job>,
    /// Name and identity of each oracle, in panel order.
    pub names: Vec<(String, String)>,
}

impl Pool {
    /// Start one executor thread per panel; all take jobs from one queue of
    /// `bound` places.
    pub fn start(panels: Vec<Panel>, bound: usize) -> Pool {
        let names = panels.first().map(|p| p.names.clone()).unwrap_or_default();
        let (queue, jobs) = mpsc::sync_channel::<Job>(bound);
        let jobs = Arc::new(Mutex::new(jobs));
        for (n, mut panel) in panels.into_iter().enumerate() {
            let jobs = Arc::clone(&jobs);
            let spawned = std::thread::Builder::new()
                .name(format!("panel-{n}"))
                .spawn(move || loop {
                    // The lock is held only while waiting for the next job.
                    let job = match jobs.lock().map(|rx| rx.recv()) {
                        Ok(Ok(job)) => job,
                        _ => return,
                    };
                    if Instant::now() >= job.deadline {
                        continue;
                    }
                    let work = job.work;
                    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run(&mut panel, work)
                    }));
                    match done {
                        Ok(done) => {
                            let _ = job.reply.send(done);
                        }
                        // Dropping the reply tells the requester (500).
                        Err(_) => log::error!("panel {n} failed on a job; serving on"),
                    }
                });
            if let Err(e) = spawned {
                log::error!("cannot start panel thread {n}: {e}");
            }
        }
        Pool { queue, names }
    }

    /// Queue `work` and wait for it at most `limit`.
    pub fn submit(&self, work: Work, limit: Duration) -> Result<Done, Refused> {
        let (reply, answer) = mpsc::channel();
        let deadline = Instant::now() + limit;
        let job = Job {
            work,
            deadline,
            reply,
        };
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(Refused::Busy),
            Err(TrySendError::Disconnected(_)) => return Err(Refused::Busy),
        }
        match answer.recv_timeout(limit) {
            Ok(done) => Ok(done),
            Err(RecvTimeoutError::Timeout) => Err(Refused::TimedOut),
            // Dropped unrun because its time was up, or the panel failed.
            Err(RecvTimeoutError::Disconnected) if Instant::now() >= deadline => {
                Err(Refused::TimedOut)
            }
            Err(RecvTimeoutError::Disconnected) => Err(Refused::Failed),
        }
    }
}

fn run(panel: &mut Panel, work: Work) -> Done {
    match work {
        Work::Check {
            body,
            queries,
            lines,
        } => {
            let answers = panel.answers(&body, &queries);
            let deciding = lines.then(|| panel.deciding(&body, &queries, &answers));
            Done::Checked { answers, deciding }
        }
        Work::Lint {
            file,
            agents,
            urls,
            budget,
            ai_crawlers,
            known,
        } => {
            let asked = lint::Asked {
                agents: &agents,
                urls: &urls,
                budget,
                progress: false,
                max_agents: lint::questions::DEFAULT_MAX_AGENTS,
                ai_crawlers: &ai_crawlers,
                known: &known,
            };
            Done::Linted(Box::new(lint::examine(panel, file, &asked, Vec::new())))
        }
        Work::Review {
            old,
            new,
            agents,
            urls,
            expect_change,
        } => {
            // A review compares verdicts; it names no causes.
            let known = lint::attribute::KnownCauses::default();
            let asked = lint::Asked {
                agents: &agents,
                urls: &urls,
                budget: Duration::ZERO,
                progress: false,
                max_agents: lint::questions::DEFAULT_MAX_AGENTS,
                ai_crawlers: &[],
                known: &known,
            };
            let review = lint::review::review(panel, &old, &new, &asked, &expect_change);
            Done::Reviewed(Box::new(review))
        }
    }
}
