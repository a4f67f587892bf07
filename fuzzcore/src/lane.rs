//! The Python oracles on a second thread, one input behind the rest.
//!
//! Why: the four Python parsers cost about 200 µs per distinct input,
//! several times what the Rust and C++ parsers and libFuzzer take together,
//! and a libFuzzer process is single-threaded, so one job left the
//! machine's second core idle. Here the fuzzing thread runs the native
//! oracles (the ones libFuzzer's coverage sees) and hands the input on; a
//! helper thread runs every Python oracle on every input it is handed, in
//! order, and the fuzzing thread triages an input once both halves are in.
//!
//! Nothing is sampled or dropped: the queue is bounded, so when the Python
//! side falls behind, the fuzzing thread waits (the wait is counted and
//! reported). What changes is timing: a disagreement that involves a Python
//! oracle is triaged a few inputs later, so when a target stops on a new
//! signature, libFuzzer's crash file is a later input; the finding's own
//! `input.fuzz` is the one that disagreed. A Python hang likewise surfaces
//! as a libFuzzer timeout on a later input.
//!
//! The Python adapters' Rust code is coverage-instrumented (it lives in the
//! `oracles` crate with `rfc9309`); run on this thread, its counters land in
//! whichever input libFuzzer is running. Those few hundred edges saturate
//! their hit-count buckets within seconds, so the noise is an early burst of
//! corpus entries, not a bias.

use engine::oracle::{Answer, Oracle, Query};
use pyo3::Python;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Inputs handed on but not yet answered, at most.
const QUEUE: usize = 32;

struct Job {
    body: Vec<u8>,
    queries: Vec<Query>,
}

/// The lane's answers to one input: per oracle (lane order), per query;
/// with the input itself, handed back so the caller need not keep a copy.
pub struct Done {
    pub body: Vec<u8>,
    pub queries: Vec<Query>,
    pub answers: Vec<Vec<Answer>>,
    /// Time each lane oracle spent on this input.
    pub nanos: Vec<u128>,
}

/// A helper thread owning some oracles, and the inputs in flight to it,
/// each with the caller's own record `T`.
pub struct Lane<T> {
    jobs: Option<SyncSender<Job>>,
    done: Receiver<Done>,
    pending: VecDeque<T>,
    thread: Option<JoinHandle<()>>,
    names: Vec<String>,
    /// Time the caller spent blocked on a full queue or on `wait`.
    pub waited: Duration,
}

impl<T> Lane<T> {
    /// Move `oracles` onto a new thread.
    pub fn start(mut oracles: Vec<Box<dyn Oracle>>) -> Lane<T> {
        let names = oracles.iter().map(|o| o.name().to_string()).collect();
        let (jobs, job_rx) = mpsc::sync_channel::<Job>(QUEUE);
        let (done_tx, done) = mpsc::channel::<Done>();
        let thread = std::thread::Builder::new()
            .name("repdiff-python-lane".into())
            .spawn(move || {
                // One Python thread state for the thread's life, the GIL let
                // go only while idle. Without it every oracle call made and
                // destroyed a thread state, and with it a frame stack chunk:
                // an mmap/munmap pair, and a TLB shootdown of the fuzzing
                // thread's core, per call (15% of this thread in the kernel).
                // (A Mutex only so the receiver may cross `detach`.)
                let job_rx = std::sync::Mutex::new(job_rx);
                let recv = |block: bool| {
                    let rx = job_rx.lock().unwrap_or_else(|p| p.into_inner());
                    if block {
                        rx.recv().map_err(|_| TryRecvError::Disconnected)
                    } else {
                        rx.try_recv()
                    }
                };
                Python::attach(|py| loop {
                    let job = match recv(false) {
                        Ok(job) => job,
                        Err(TryRecvError::Empty) => match py.detach(|| recv(true)) {
                            Ok(job) => job,
                            Err(_) => return,
                        },
                        Err(TryRecvError::Disconnected) => return,
                    };
                    let mut answers = Vec::with_capacity(oracles.len());
                    let mut nanos = Vec::with_capacity(oracles.len());
                    for o in oracles.iter_mut() {
                        let t0 = Instant::now();
                        answers.push(o.run(&job.body, &job.queries));
                        nanos.push(t0.elapsed().as_nanos());
                    }
                    let Job { body, queries } = job;
                    let done = Done {
                        body,
                        queries,
                        answers,
                        nanos,
                    };
                    if done_tx.send(done).is_err() {
                        return;
                    }
                })
            })
            .unwrap_or_else(|e| panic!("repdiff-fuzz: cannot start the Python lane: {e}"));
        Lane {
            jobs: Some(jobs),
            done,
            pending: VecDeque::new(),
            thread: Some(thread),
            names,
            waited: Duration::ZERO,
        }
    }

    /// The lane's oracles, in the order of [`Done::answers`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Hand one input on; blocks while the queue is full.
    pub fn submit(&mut self, body: Vec<u8>, queries: Vec<Query>, record: T) {
        let job = Job { body, queries };
        let Some(jobs) = &self.jobs else {
            panic!("repdiff-fuzz: the Python lane is closed");
        };
        let t0 = Instant::now();
        if jobs.send(job).is_err() {
            panic!("repdiff-fuzz: the Python lane's thread died (see its panic above)");
        }
        self.waited += t0.elapsed();
        self.pending.push_back(record);
    }

    /// The oldest input whose answers are in, if any, without waiting.
    pub fn ready(&mut self) -> Option<(T, Done)> {
        if self.pending.is_empty() {
            return None;
        }
        match self.done.try_recv() {
            Ok(d) => self.pending.pop_front().map(|t| (t, d)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                panic!("repdiff-fuzz: the Python lane's thread died (see its panic above)")
            }
        }
    }

    /// The oldest input in flight, waiting for its answers.
    pub fn wait(&mut self) -> Option<(T, Done)> {
        if self.pending.is_empty() {
            return None;
        }
        let t0 = Instant::now();
        let d = self.done.recv().unwrap_or_else(|_| {
            panic!("repdiff-fuzz: the Python lane's thread died (see its panic above)")
        });
        self.waited += t0.elapsed();
        self.pending.pop_front().map(|t| (t, d))
    }
}

impl<T> Drop for Lane<T> {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::oracle::{Ask, Capabilities, Outcome};

    /// Answers with the body's length, so order mistakes show.
    struct Len;
    impl Oracle for Len {
        fn name(&self) -> &str {
            "len"
        }
        fn about(&self) -> engine::oracle::About {
            engine::oracle::About {
                library: "test".into(),
                version: "0".into(),
                ..Default::default()
            }
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            queries
                .iter()
                .map(|_| {
                    Answer::from(if body.len().is_multiple_of(2) {
                        Outcome::Allowed
                    } else {
                        Outcome::Disallowed
                    })
                })
                .collect()
        }
    }

    #[test]
    fn answers_come_back_in_order_with_their_records() {
        let mut lane: Lane<usize> = Lane::start(vec![Box::new(Len)]);
        let q = vec![Query {
            ask: Ask::CanFetch,
            agent: "a".into(),
            url: "/".into(),
        }];
        let mut got = Vec::new();
        for i in 0..200usize {
            lane.submit(vec![b'x'; i], q.clone(), i);
            while let Some((rec, d)) = lane.ready() {
                assert_eq!(d.body.len(), rec, "the body handed back is the input's");
                got.push((rec, d.answers[0][0].outcome.clone()));
            }
        }
        while let Some((rec, d)) = lane.wait() {
            assert_eq!(d.body.len(), rec, "the body handed back is the input's");
            got.push((rec, d.answers[0][0].outcome.clone()));
        }
        assert_eq!(got.len(), 200);
        for (k, (rec, outcome)) in got.iter().enumerate() {
            assert_eq!(*rec, k);
            let want = if k.is_multiple_of(2) {
                Outcome::Allowed
            } else {
                Outcome::Disallowed
            };
            assert_eq!(*outcome, want, "input {k}");
        }
        assert_eq!(lane.in_flight(), 0);
    }
}
