//! Oracles on helper threads, up to a thousand inputs behind the fuzzing
//! thread.
//!
//! Why: a libFuzzer process is single-threaded, and most oracles cost far
//! more than the native ones libFuzzer's coverage sees. The four Python
//! parsers take about 200 µs per distinct input; an external oracle (a JVM,
//! Go, node, Perl, Ruby or Python worker process, or an `--oracle-cmd`)
//! costs a round trip over its pipe. So the fuzzing thread runs the native
//! oracles and hands each input on to every lane: one thread for the
//! embedded Python oracles, and one per worker process, so a slow runtime
//! holds up only its own queue. Inputs are handed on in batches of
//! [`BATCH`], and a lane asks its oracles for a whole batch at once
//! ([`Oracle::run_many`]: one exchange with a worker instead of a round
//! trip per input, and one wake-up of the lane per batch: handed on one by
//! one, 11 worker lanes on 2 cores spent their time being scheduled). The
//! fuzzing thread triages an input once every lane has answered it.
//!
//! Nothing is sampled or dropped: the queues are bounded, so when a lane
//! falls behind, the fuzzing thread waits (the wait is counted and
//! reported per lane). What changes is timing: a disagreement that involves
//! a laned oracle is triaged up to `QUEUE` x [`BATCH`] inputs later, so
//! when a target stops on a new signature, libFuzzer's crash file is a later
//! input; the finding's own `input.fuzz` is the one that disagreed. A hang
//! likewise surfaces as a libFuzzer timeout on a later input (a worker's own
//! timeout answers it first: see engine::worker).
//!
//! The Python adapters' Rust code is coverage-instrumented (it lives in the
//! `oracles` crate with `rfc9309`); run on a lane, its counters land in
//! whichever input libFuzzer is running. Those few hundred edges saturate
//! their hit-count buckets within seconds, so the noise is an early burst of
//! corpus entries, not a bias.

use engine::oracle::{Answer, Oracle, Query};
use pyo3::Python;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Batches handed on to one lane but not yet answered, at most: 1,024
/// inputs, about half a second of the loop. Why so deep: a worker that
/// times out (250 ms) and restarts holds its lane for about 0.4 s, and with
/// 4 batches in flight the fuzzing thread then waited on it while every
/// other lane ran dry; with 64 the other lanes keep working and the slow one
/// catches up after.
const QUEUE: usize = 64;

/// Inputs handed on together, and asked of a lane's oracles at once.
pub const BATCH: usize = 16;

/// One input, shared by every lane it is handed to.
pub struct Job {
    pub body: Vec<u8>,
    pub queries: Vec<Query>,
}

/// One lane's answers to one input: per oracle (lane order), per query.
pub struct Done {
    pub answers: Vec<Vec<Answer>>,
    /// Time each lane oracle spent on this input (a group's time shared
    /// evenly among its inputs).
    pub nanos: Vec<u128>,
}

/// CPU a lane has cost so far, kept by its thread for the fuzzing thread's
/// statistics: what the report needs to say where a distinct input's CPU
/// goes (and so what rate two cores can give at most), which exec/s alone
/// cannot.
#[derive(Default)]
pub struct LaneCpu {
    /// The lane thread's own CPU (its oracles' Rust side, the embedded
    /// Python oracles, the worker protocol), in ns.
    thread: AtomicU64,
    /// Its worker processes' CPU (`Oracle::process_cpu`), in ns; read at
    /// most once per [`LaneCpu::WORKER_EVERY`], since it scans /proc.
    workers: AtomicU64,
}

impl LaneCpu {
    const WORKER_EVERY: Duration = Duration::from_secs(1);

    pub fn thread(&self) -> Duration {
        Duration::from_nanos(self.thread.load(Ordering::Relaxed))
    }

    pub fn workers(&self) -> Duration {
        Duration::from_nanos(self.workers.load(Ordering::Relaxed))
    }

    fn store(slot: &AtomicU64, d: Duration) {
        slot.store(
            u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }
}

/// What a lane's oracles run on: the embedded interpreter needs its
/// thread state held for the thread's life; worker processes need nothing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Runtime {
    Python,
    Workers,
}

/// A helper thread owning some oracles, and the count of inputs in flight
/// to it.
pub struct Lane {
    label: String,
    jobs: Option<SyncSender<Vec<Arc<Job>>>>,
    done: Receiver<Done>,
    /// The oldest answer, read ahead while another lane was not ready.
    slot: Option<Done>,
    in_flight: usize,
    thread: Option<JoinHandle<()>>,
    names: Vec<String>,
    /// The lane's CPU so far.
    pub cpu: Arc<LaneCpu>,
    /// Time the caller spent blocked on this lane's full queue or its
    /// answers.
    pub waited: Duration,
    /// Inputs this lane answered.
    pub answered: u64,
}

impl Lane {
    /// Move `oracles` onto a new thread named after `label`.
    pub fn start(label: &str, runtime: Runtime, oracles: Vec<Box<dyn Oracle>>) -> Lane {
        let names = oracles.iter().map(|o| o.name().to_string()).collect();
        let (jobs, job_rx) = mpsc::sync_channel::<Vec<Arc<Job>>>(QUEUE);
        let (done_tx, done) = mpsc::channel::<Done>();
        let cpu = Arc::new(LaneCpu::default());
        let lane_cpu = Arc::clone(&cpu);
        let thread = std::thread::Builder::new()
            .name(format!("repdiff-lane-{label}"))
            .spawn(move || {
                // (A Mutex only so the receiver may cross Python's `detach`.)
                let job_rx = Mutex::new(job_rx);
                match runtime {
                    // One Python thread state for the thread's life, the GIL
                    // let go only while idle. Without it every oracle call
                    // made and destroyed a thread state, and with it a frame
                    // stack chunk: an mmap/munmap pair, and a TLB shootdown
                    // of the fuzzing thread's core, per call (15% of this
                    // thread in the kernel).
                    Runtime::Python => Python::attach(|py| {
                        serve(&job_rx, oracles, &done_tx, &lane_cpu, &|wait| {
                            py.detach(&mut *wait)
                        })
                    }),
                    Runtime::Workers => {
                        serve(&job_rx, oracles, &done_tx, &lane_cpu, &|wait| wait())
                    }
                }
            })
            .unwrap_or_else(|e| panic!("repdiff-fuzz: cannot start the {label} lane: {e}"));
        Lane {
            label: label.to_string(),
            jobs: Some(jobs),
            done,
            slot: None,
            in_flight: 0,
            thread: Some(thread),
            names,
            cpu,
            waited: Duration::ZERO,
            answered: 0,
        }
    }

    /// The lane's oracles, in the order of [`Done::answers`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// Hand a batch on; blocks while the queue is full.
    fn submit(&mut self, batch: Vec<Arc<Job>>) {
        let Some(jobs) = &self.jobs else {
            panic!("repdiff-fuzz: the {} lane is closed", self.label);
        };
        let n = batch.len();
        let t0 = Instant::now();
        if jobs.send(batch).is_err() {
            self.died();
        }
        self.waited += t0.elapsed();
        self.in_flight += n;
    }

    /// Is the oldest input's answer in? With `block`, wait for it.
    fn poll(&mut self, block: bool) -> bool {
        if self.slot.is_some() {
            return true;
        }
        if self.in_flight == 0 {
            return false;
        }
        let got = if block {
            let t0 = Instant::now();
            let d = self.done.recv().ok();
            self.waited += t0.elapsed();
            d.or_else(|| self.died())
        } else {
            match self.done.try_recv() {
                Ok(d) => Some(d),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => self.died(),
            }
        };
        self.slot = got;
        self.slot.is_some()
    }

    fn take(&mut self) -> Option<Done> {
        let d = self.slot.take()?;
        self.in_flight -= 1;
        self.answered += 1;
        Some(d)
    }

    /// Take no more inputs: the thread makes its last CPU reading and
    /// ends. Waits for it until `by` (the thread is not joined: a Python
    /// lane at process exit must not hang the exit on the GIL).
    fn close(&mut self, by: Instant) {
        self.jobs = None;
        loop {
            let left = by.saturating_duration_since(Instant::now());
            match self.done.recv_timeout(left) {
                // An answer nobody asked for any more: read past it.
                Ok(_) => continue,
                Err(_) => return, // ended (disconnected) or out of time
            }
        }
    }

    fn died(&self) -> ! {
        panic!(
            "repdiff-fuzz: the {} lane's thread died (see its panic above)",
            self.label
        )
    }
}

/// The next batch, waited for (`None`: the lanes are closing).
type Wait<'a> = dyn FnMut() -> Option<Vec<Arc<Job>>> + Send + 'a;

/// How a lane thread waits: Python lets the GIL go around it.
type Idle<'a> = dyn Fn(&mut Wait<'_>) -> Option<Vec<Arc<Job>>> + 'a;

/// A lane thread's loop: take the next batch, ask each oracle for all of
/// it, hand the answers back in order. `idle` runs the blocking wait for
/// the next batch. `cpu` is kept current after each batch.
fn serve(
    jobs: &Mutex<Receiver<Vec<Arc<Job>>>>,
    mut oracles: Vec<Box<dyn Oracle>>,
    done: &mpsc::Sender<Done>,
    cpu: &LaneCpu,
    idle: &Idle<'_>,
) {
    let rx = || jobs.lock().unwrap_or_else(|p| p.into_inner());
    let thread0 = engine::worker::cpu::of_this_thread();
    let mut workers_read: Option<Instant> = None;
    // Closing: one last read, so the statistics count every batch.
    let last = |oracles: &[Box<dyn Oracle>]| {
        let thread = engine::worker::cpu::of_this_thread().saturating_sub(thread0);
        LaneCpu::store(&cpu.thread, thread);
        LaneCpu::store(&cpu.workers, workers_cpu(oracles));
    };
    loop {
        // Bound first: the guard of a `match` scrutinee lives through
        // the arms, and the blocking arm locks again.
        let next = rx().try_recv();
        let group = match next {
            Ok(batch) => batch,
            Err(TryRecvError::Disconnected) => return last(&oracles),
            Err(TryRecvError::Empty) => match idle(&mut || rx().recv().ok()) {
                Some(batch) => batch,
                None => return last(&oracles),
            },
        };
        let inputs: Vec<(&[u8], &[Query])> = group
            .iter()
            .map(|j| (j.body.as_slice(), j.queries.as_slice()))
            .collect();
        let mut per_oracle = Vec::with_capacity(oracles.len());
        let mut nanos = Vec::with_capacity(oracles.len());
        for o in oracles.iter_mut() {
            let t0 = Instant::now();
            let answers = o.run_many(&inputs);
            nanos.push(t0.elapsed().as_nanos() / group.len() as u128);
            if answers.len() != group.len() {
                panic!(
                    "repdiff-fuzz: {} answered {} of {} inputs",
                    o.name(),
                    answers.len(),
                    group.len()
                );
            }
            per_oracle.push(answers.into_iter());
        }
        LaneCpu::store(
            &cpu.thread,
            engine::worker::cpu::of_this_thread().saturating_sub(thread0),
        );
        if workers_read.is_none_or(|t| t.elapsed() >= LaneCpu::WORKER_EVERY) {
            workers_read = Some(Instant::now());
            LaneCpu::store(&cpu.workers, workers_cpu(&oracles));
        }
        for _ in 0..group.len() {
            let answers = per_oracle.iter_mut().filter_map(Iterator::next).collect();
            let d = Done {
                answers,
                nanos: nanos.clone(),
            };
            if done.send(d).is_err() {
                return;
            }
        }
    }
}

/// The CPU of a lane's worker processes so far (a scan of /proc).
fn workers_cpu(oracles: &[Box<dyn Oracle>]) -> Duration {
    oracles.iter().filter_map(|o| o.process_cpu()).sum()
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Every lane, and the inputs in flight to them, each with the caller's
/// own record `T`; an input is ready when every lane has answered it.
pub struct Lanes<T> {
    lanes: Vec<Lane>,
    pending: VecDeque<(T, Arc<Job>)>,
    /// The newest inputs of `pending`, not yet handed on (fewer than
    /// [`BATCH`]).
    unsent: Vec<Arc<Job>>,
}

impl<T> Lanes<T> {
    pub fn new(lanes: Vec<Lane>) -> Lanes<T> {
        Lanes {
            lanes,
            pending: VecDeque::new(),
            unsent: Vec::with_capacity(BATCH),
        }
    }

    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Queue one input for every lane; a full batch is handed on, which
    /// blocks while a lane's queue is full.
    pub fn submit(&mut self, body: Vec<u8>, queries: Vec<Query>, record: T) {
        let job = Arc::new(Job { body, queries });
        self.unsent.push(Arc::clone(&job));
        self.pending.push_back((record, job));
        if self.unsent.len() >= BATCH {
            self.hand_on();
        }
    }

    /// Hand the unsent inputs on to every lane.
    fn hand_on(&mut self) {
        if self.unsent.is_empty() {
            return;
        }
        for lane in &mut self.lanes {
            lane.submit(self.unsent.clone());
        }
        self.unsent.clear();
    }

    /// The oldest input every lane has answered, if any, without waiting:
    /// its record, the input, and each lane's answers (lane order).
    pub fn ready(&mut self) -> Option<(T, Arc<Job>, Vec<Done>)> {
        self.next(false)
    }

    /// The oldest input in flight, waiting for every lane's answers (a
    /// batch not yet full is handed on first).
    pub fn wait(&mut self) -> Option<(T, Arc<Job>, Vec<Done>)> {
        if self.pending.len() == self.unsent.len() {
            self.hand_on();
        }
        self.next(true)
    }

    /// End every lane, waiting at most `grace` for their last CPU
    /// readings; the lanes take no input after.
    pub fn close(&mut self, grace: Duration) {
        let by = Instant::now() + grace;
        for lane in &mut self.lanes {
            lane.jobs = None; // all at once: they end in parallel
        }
        for lane in &mut self.lanes {
            lane.close(by);
        }
    }

    fn next(&mut self, block: bool) -> Option<(T, Arc<Job>, Vec<Done>)> {
        if self.pending.len() == self.unsent.len() {
            return None; // nothing handed on yet
        }
        // Every lane polled (not stopping at the first not ready), so each
        // keeps its answer read ahead.
        let mut ready = true;
        for lane in &mut self.lanes {
            ready &= lane.poll(block);
        }
        if !ready {
            return None;
        }
        let done = self.lanes.iter_mut().filter_map(Lane::take).collect();
        self.pending.pop_front().map(|(t, job)| (t, job, done))
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

    /// [`Len`] with a worker process's CPU to report: 1 ms per input run.
    struct Worker(Len, AtomicU64);
    impl Oracle for Worker {
        fn name(&self) -> &str {
            "worker"
        }
        fn about(&self) -> engine::oracle::About {
            self.0.about()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.run(body, queries)
        }
        fn process_cpu(&self) -> Option<Duration> {
            Some(Duration::from_millis(self.1.load(Ordering::Relaxed)))
        }
    }

    /// A lane keeps its thread's CPU and its workers' for the statistics,
    /// and on closing reads them once more: the workers are read at most
    /// once a second, so without that last reading the batches after the
    /// first (here well under a second) would be missing.
    #[test]
    fn a_lane_counts_its_thread_and_its_workers_cpu() {
        let lane = Lane::start(
            "workers",
            Runtime::Workers,
            vec![
                Box::new(Worker(Len, AtomicU64::new(0))),
                Box::new(Worker(Len, AtomicU64::new(1000))),
                Box::new(Len),
            ],
        );
        let mut lanes: Lanes<()> = Lanes::new(vec![lane]);
        for i in 0..100usize {
            lanes.submit(vec![b'x'; i], query(), ());
        }
        while lanes.wait().is_some() {}
        lanes.close(Duration::from_secs(10));
        let cpu = &lanes.lanes()[0].cpu;
        assert!(cpu.thread() > Duration::ZERO, "no thread CPU counted");
        assert_eq!(
            cpu.workers(),
            Duration::from_millis(1200),
            "the workers' CPU is the sum of what the lane's oracles report, \
             read after the last batch"
        );
    }

    fn query() -> Vec<Query> {
        vec![Query {
            ask: Ask::CanFetch,
            agent: "a".into(),
            url: "/".into(),
        }]
    }

    fn parity(k: usize) -> Outcome {
        if k.is_multiple_of(2) {
            Outcome::Allowed
        } else {
            Outcome::Disallowed
        }
    }

    /// Two lanes of different speeds (one in groups, one a Python lane
    /// taking inputs one by one as they come): every input comes back once,
    /// in order, with its own record and both lanes' answers to it.
    #[test]
    fn answers_come_back_in_order_with_their_records() {
        let lanes = vec![
            Lane::start("workers", Runtime::Workers, vec![Box::new(Len)]),
            Lane::start(
                "python",
                Runtime::Python,
                vec![Box::new(Len), Box::new(Len)],
            ),
        ];
        let mut lanes: Lanes<usize> = Lanes::new(lanes);
        let mut got = Vec::new();
        let mut check = |(rec, job, done): (usize, Arc<Job>, Vec<Done>)| {
            assert_eq!(job.body.len(), rec, "the input handed back is the record's");
            assert_eq!(done.len(), 2, "one answer set per lane");
            assert_eq!(done[1].answers.len(), 2, "one per oracle of the lane");
            for d in &done {
                for a in &d.answers {
                    assert_eq!(a[0].outcome, parity(rec), "input {rec}");
                }
            }
            got.push(rec);
        };
        for i in 0..500usize {
            lanes.submit(vec![b'x'; i], query(), i);
            while let Some(r) = lanes.ready() {
                check(r);
            }
        }
        while let Some(r) = lanes.wait() {
            check(r);
        }
        assert_eq!(got, (0..500).collect::<Vec<_>>());
        assert_eq!(lanes.in_flight(), 0);
        assert!(lanes.lanes().iter().all(|l| l.answered == 500));
    }
}
