//! Every oracle on its own thread for the whole run, fed batches through a
//! bounded queue, results tallied in input order.
//!
//! The census used to hand each batch to all oracles and wait for the
//! slowest before the next batch: the run cost the sum of per-batch maxima,
//! and the fast oracles idled while Ruby's or Perl's parser finished. Here a
//! fast oracle runs up to [`WINDOW`] batches ahead of the slowest, so the
//! wall time tends to the slowest oracle's own time (or the machine's total
//! work over its cores), while memory stays bounded by the window. No more
//! lanes than cores are in a call at once ([`at_once`]), so each worker
//! spends about the CPU its library needs alone.

use crate::queries::Asked;
use engine::oracle::{Answer, Oracle, Outcome};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::input::Record;

/// How many batches the fastest oracle may run ahead of the slowest.
const WINDOW: usize = 8;

/// How many lanes may be in a call at once: one per core. With every lane
/// let loose, 25 worker processes took turns on 2 cores, each evicting the
/// others' caches, and each spent 1.5 to 2.5 times the CPU its library
/// needs alone (the published census of 2026-12-06: 413 s of census CPU
/// for 271 s of the libraries' own loops). On the first 1,200 files of
/// the default data, one run each on an idle 2-core machine: every lane
/// at once 67.8 s (1.43x the libraries' floor), three at once 63.4 s
/// (1.34x), two 58.8 s (1.23x). A lane waiting for a core is idle, so the
/// window above still lets the fast ones run ahead.
fn at_once() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A counting semaphore: [`Cores::take`] waits for a free core and gives
/// it back when the returned guard drops.
struct Cores {
    free: Mutex<usize>,
    freed: Condvar,
}

struct Core<'a>(&'a Cores);

impl Cores {
    fn new(n: usize) -> Self {
        Cores {
            free: Mutex::new(n.max(1)),
            freed: Condvar::new(),
        }
    }

    fn take(&self) -> Core<'_> {
        // A panicking lane never holds the lock (it is taken only here and
        // in drop), so a poisoned lock still counts right.
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Core(self)
    }
}

impl Drop for Core<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.0.freed.notify_one();
    }
}

/// One batch: the files to ask and, per file, the queries derived from it.
pub(crate) struct Work {
    pub files: Vec<Record>,
    pub asked: Vec<Vec<Asked>>,
    /// Records passed over while this batch was made (a non-2xx status):
    /// counted in the progress, never asked.
    pub skipped: u64,
}

/// One batch answered by every oracle: `answers[oracle][file][query]`, and
/// each oracle's time on it.
pub(crate) struct Answered {
    pub answers: Vec<Vec<Vec<Answer>>>,
    pub took: Vec<Spent>,
}

/// The time a lane spent on its calls: wall-clock, and the CPU time of the
/// census thread driving the oracle (encoding, pipes, decoding; the whole
/// parse for an oracle in this process). The rest of the wall time is the
/// worker's own work and the waits for it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub wall: Duration,
    pub driver_cpu: Duration,
}

impl std::ops::AddAssign for Spent {
    fn add_assign(&mut self, o: Spent) {
        self.wall += o.wall;
        self.driver_cpu += o.driver_cpu;
    }
}

struct Done {
    batch: usize,
    oracle: usize,
    answers: Vec<Vec<Answer>>,
    took: Spent,
}

/// Feed every batch of `work` to every oracle, calling `finish` on each
/// batch once all oracles have answered it, in the order the batches came.
/// `lanes` are the running instances: `(k, oracle)` answers for oracle `k`
/// of `oracles` (0-based; every `k` below `oracles` needs one); an oracle
/// with two instances takes its batches from one queue on two threads.
/// An `Err` from `work` stops feeding; what was fed is still finished, then
/// the error is returned.
pub(crate) fn run<E>(
    work: impl Iterator<Item = Result<Work, E>>,
    oracles: usize,
    lanes: Vec<(usize, &mut Box<dyn Oracle>)>,
    mut finish: impl FnMut(&Work, Answered),
) -> Result<(), E> {
    // An oracle without an instance would never answer, and no batch
    // would ever finish: a caller's mistake, caught here.
    assert!(
        (0..oracles).all(|k| lanes.iter().any(|(j, _)| *j == k)),
        "census pipeline: every oracle needs a running instance"
    );
    let cores = Cores::new(at_once());
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let mut feeds = Vec::with_capacity(oracles);
        let mut queues = Vec::with_capacity(oracles);
        for _ in 0..oracles {
            let (tx, rx) = mpsc::sync_channel::<(usize, Arc<Work>)>(WINDOW);
            feeds.push(tx);
            queues.push(Arc::new(Mutex::new(rx)));
        }
        for (k, oracle) in lanes {
            let queue = Arc::clone(&queues[k]);
            let done_tx = done_tx.clone();
            let cores = &cores;
            s.spawn(move || loop {
                // The lock is held only while waiting for the next batch.
                let next = match queue.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok((batch, w)) = next else { break };
                // Taken before the clock starts: a lane's busy time is its
                // calls', not its wait for a core.
                let core = cores.take();
                let start = Instant::now();
                let cpu = engine::worker::cpu::of_this_thread();
                let answers = ask_batch(oracle.as_mut(), &w);
                let took = Spent {
                    wall: start.elapsed(),
                    driver_cpu: engine::worker::cpu::of_this_thread().saturating_sub(cpu),
                };
                drop(core);
                let _ = done_tx.send(Done {
                    batch,
                    oracle: k,
                    answers,
                    took,
                });
            });
        }
        drop(queues);
        drop(done_tx);
        let mut collector = Collector::new(oracles);
        let mut result = Ok(());
        for (batch, w) in work.enumerate() {
            let w = match w {
                Ok(w) => Arc::new(w),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            collector.expect(Arc::clone(&w));
            for feed in &feeds {
                // Blocks while this oracle is WINDOW batches behind: that
                // is the bound on memory.
                let _ = feed.send((batch, Arc::clone(&w)));
            }
            while let Ok(d) = done_rx.try_recv() {
                collector.take(d, &mut finish);
            }
        }
        drop(feeds);
        for d in done_rx {
            collector.take(d, &mut finish);
        }
        result
    })
}

/// A batch's files through one oracle in one [`Oracle::run_many`]: a
/// worker then sends them in one exchange instead of a round trip each,
/// which for a small file is most of what it costs (spider spent 5.2 times
/// its library's CPU in the census of 2026-12-07, one request per file). A
/// panic in the driver falls back to one file at a time, so it costs only
/// the file it happens on.
fn ask_batch(oracle: &mut dyn Oracle, w: &Work) -> Vec<Vec<Answer>> {
    let qs: Vec<Vec<_>> = w
        .asked
        .iter()
        .map(|asked| asked.iter().map(|q| q.query.clone()).collect())
        .collect();
    let inputs: Vec<(&[u8], &[engine::oracle::Query])> = w
        .files
        .iter()
        .zip(&qs)
        .map(|(r, q)| (r.body.as_slice(), q.as_slice()))
        .collect();
    let name = oracle.name().to_string();
    match catch_unwind(AssertUnwindSafe(|| oracle.run_many(&inputs))) {
        Ok(all) if all.len() == inputs.len() => all
            .into_iter()
            .zip(&qs)
            .map(|(answers, q)| crate::checked(answers, q.len(), &name))
            .collect(),
        _ => w
            .files
            .iter()
            .zip(&w.asked)
            .map(|(r, a)| ask(oracle, r, a))
            .collect(),
    }
}

/// One file through one oracle. A panic in the oracle's driver costs that
/// file's answers (crash outcomes), not the thread and every later batch.
fn ask(oracle: &mut dyn Oracle, r: &Record, asked: &[Asked]) -> Vec<Answer> {
    let qs: Vec<_> = asked.iter().map(|q| q.query.clone()).collect();
    let name = oracle.name().to_string();
    match catch_unwind(AssertUnwindSafe(|| oracle.run(&r.body, &qs))) {
        Ok(answers) => crate::checked(answers, qs.len(), &name),
        Err(_) => qs
            .iter()
            .map(|_| {
                Answer::from(Outcome::Crash {
                    detail: "the census thread driving this oracle panicked".into(),
                })
            })
            .collect(),
    }
}

/// Answers arrive per (batch, oracle) in any order; a batch is finished
/// when all oracles have answered it and every earlier batch is finished.
struct Collector {
    oracles: usize,
    next: usize,
    expected: usize,
    pending: BTreeMap<usize, Pending>,
}

struct Pending {
    work: Arc<Work>,
    answers: Vec<Option<Vec<Vec<Answer>>>>,
    took: Vec<Spent>,
    missing: usize,
}

impl Collector {
    fn new(oracles: usize) -> Self {
        Collector {
            oracles,
            next: 0,
            expected: 0,
            pending: BTreeMap::new(),
        }
    }

    fn expect(&mut self, work: Arc<Work>) {
        self.pending.insert(
            self.expected,
            Pending {
                work,
                answers: vec![None; self.oracles],
                took: vec![Spent::default(); self.oracles],
                missing: self.oracles,
            },
        );
        self.expected += 1;
    }

    fn take(&mut self, d: Done, finish: &mut impl FnMut(&Work, Answered)) {
        if let Some(p) = self.pending.get_mut(&d.batch) {
            p.answers[d.oracle] = Some(d.answers);
            p.took[d.oracle] += d.took;
            p.missing -= 1;
        }
        while self.pending.get(&self.next).is_some_and(|p| p.missing == 0) {
            let Some(p) = self.pending.remove(&self.next) else {
                break;
            };
            let answers = p.answers.into_iter().map(Option::unwrap_or_default);
            finish(
                &p.work,
                Answered {
                    answers: answers.collect(),
                    took: p.took,
                },
            );
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::oracle::{About, Capabilities, Query};

    /// A fake that answers `allowed` after sleeping `delay` per file: the
    /// pipeline must keep input order whatever the oracles' speeds.
    struct Sleepy {
        name: String,
        delay: Duration,
    }

    impl Oracle for Sleepy {
        fn name(&self) -> &str {
            &self.name
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            std::thread::sleep(self.delay);
            if body == b"panic" {
                panic!("fake panic");
            }
            queries
                .iter()
                .map(|_| Answer::from(Outcome::Allowed))
                .collect()
        }
    }

    fn batch(i: usize) -> Work {
        let body = if i == 3 { b"panic".to_vec() } else { vec![] };
        let q = Asked {
            query: Query {
                ask: engine::oracle::Ask::CanFetch,
                agent: "a".into(),
                url: format!("http://h/{i}"),
            },
            kind: crate::queries::Kind::Root,
            whole_site: false,
            unrequested: false,
        };
        Work {
            files: vec![Record {
                name: format!("f{i}"),
                host: "h".into(),
                body,
                status: None,
            }],
            asked: vec![vec![q]],
            skipped: 0,
        }
    }

    #[test]
    fn a_core_taken_is_waited_for_until_it_is_given_back() {
        let cores = Cores::new(2);
        let a = cores.take();
        let _b = cores.take();
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                let _c = cores.take();
                let _ = tx.send(());
            });
            assert!(
                rx.recv_timeout(Duration::from_millis(100)).is_err(),
                "a third lane got a core while both were taken"
            );
            drop(a);
            assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        });
    }

    /// A fake counting how many of its kind are in a call at once.
    struct Counted {
        name: String,
        now: Arc<std::sync::atomic::AtomicUsize>,
        most: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Oracle for Counted {
        fn name(&self) -> &str {
            &self.name
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, _: &[u8], queries: &[Query]) -> Vec<Answer> {
            use std::sync::atomic::Ordering::SeqCst;
            let n = self.now.fetch_add(1, SeqCst) + 1;
            self.most.fetch_max(n, SeqCst);
            std::thread::sleep(Duration::from_millis(2));
            self.now.fetch_sub(1, SeqCst);
            queries
                .iter()
                .map(|_| Answer::from(Outcome::Allowed))
                .collect()
        }
    }

    #[test]
    fn no_more_lanes_than_cores_are_in_a_call_at_once() {
        let now = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut oracles: Vec<Box<dyn Oracle>> = (0..at_once() + 4)
            .map(|i| {
                Box::new(Counted {
                    name: format!("o{i}"),
                    now: Arc::clone(&now),
                    most: Arc::clone(&most),
                }) as Box<dyn Oracle>
            })
            .collect();
        let n = oracles.len();
        let work = (0..20).map(|i| Ok::<_, ()>(batch(i + 100)));
        let lanes = oracles.iter_mut().enumerate().collect();
        let mut finished = 0;
        run(work, n, lanes, |_, _| finished += 1).unwrap();
        assert_eq!(finished, 20);
        let most = most.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            (1..=at_once()).contains(&most),
            "{most} lanes in a call at once, {} cores",
            at_once()
        );
    }

    #[test]
    fn batches_finish_in_input_order_and_a_panic_costs_one_file() {
        let mut oracles: Vec<Box<dyn Oracle>> = vec![
            Box::new(Sleepy {
                name: "slow".into(),
                delay: Duration::from_millis(3),
            }),
            Box::new(Sleepy {
                name: "fast".into(),
                delay: Duration::ZERO,
            }),
        ];
        let mut seen = Vec::new();
        let work = (0..30).map(|i| Ok::<_, ()>(batch(i)));
        let lanes = oracles.iter_mut().enumerate().collect();
        run(work, 2, lanes, |w, a| {
            assert_eq!(a.answers.len(), 2);
            let crashed = a.answers[0][0][0].outcome.is_failure();
            seen.push((w.files[0].name.clone(), crashed));
        })
        .unwrap();
        let names: Vec<String> = (0..30).map(|i| format!("f{i}")).collect();
        assert_eq!(seen.iter().map(|s| s.0.clone()).collect::<Vec<_>>(), names);
        let crashed: Vec<bool> = seen.iter().map(|s| s.1).collect();
        assert!(crashed[3] && crashed.iter().filter(|c| **c).count() == 1);
    }

    /// A fake recording the size of each `run_many` it is handed.
    struct Grouped {
        groups: Arc<Mutex<Vec<usize>>>,
    }

    impl Oracle for Grouped {
        fn name(&self) -> &str {
            "grouped"
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            assert!(body != b"panic", "fake panic");
            queries
                .iter()
                .map(|_| Answer::from(Outcome::Allowed))
                .collect()
        }
        fn run_many(&mut self, inputs: &[(&[u8], &[Query])]) -> Vec<Vec<Answer>> {
            self.groups
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(inputs.len());
            inputs.iter().map(|(b, q)| self.run(b, q)).collect()
        }
    }

    /// Files 0..n of one batch, file `panic_at` (if any) panicking.
    fn batch_of(n: usize, panic_at: Option<usize>) -> Work {
        let mut w = batch(0);
        let one = (w.files.remove(0), w.asked.remove(0));
        for i in 0..n {
            let mut r = one.0.clone();
            r.name = format!("g{i}");
            r.body = if Some(i) == panic_at {
                b"panic".to_vec()
            } else {
                Vec::new()
            };
            w.files.push(r);
            w.asked.push(one.1.clone());
        }
        w
    }

    #[test]
    fn a_batch_goes_to_the_oracle_in_one_call_and_a_panic_costs_one_file() {
        let groups = Arc::new(Mutex::new(Vec::new()));
        let mut oracle: Box<dyn Oracle> = Box::new(Grouped {
            groups: Arc::clone(&groups),
        });
        let mut seen = Vec::new();
        let work = [Ok::<_, ()>(batch_of(5, None)), Ok(batch_of(4, Some(2)))];
        run(work.into_iter(), 1, vec![(0, &mut oracle)], |w, a| {
            for (r, answers) in w.files.iter().zip(&a.answers[0]) {
                seen.push((r.name.clone(), answers[0].outcome.is_failure()));
            }
        })
        .unwrap();
        let failed: Vec<&str> = seen.iter().filter(|s| s.1).map(|s| s.0.as_str()).collect();
        assert_eq!(seen.len(), 9);
        assert_eq!(failed, ["g2"], "only the panicking file");
        let groups = groups.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(groups, [5, 4], "one call per batch, then file by file");
    }

    #[test]
    fn an_input_error_stops_feeding_but_finishes_what_was_fed() {
        let mut oracles: Vec<Box<dyn Oracle>> = vec![Box::new(Sleepy {
            name: "one".into(),
            delay: Duration::ZERO,
        })];
        let mut finished = 0;
        let work = (0..10).map(|i| if i == 5 { Err("bad") } else { Ok(batch(i)) });
        let lanes = oracles.iter_mut().enumerate().collect();
        let r = run(work, 1, lanes, |_, _| finished += 1);
        assert_eq!(r, Err("bad"));
        assert_eq!(finished, 5);
    }

    #[test]
    fn two_instances_of_one_oracle_share_its_batches() {
        let mut one: Box<dyn Oracle> = Box::new(Sleepy {
            name: "slow".into(),
            delay: Duration::from_millis(2),
        });
        let mut two: Box<dyn Oracle> = Box::new(Sleepy {
            name: "slow".into(),
            delay: Duration::from_millis(2),
        });
        let mut other: Box<dyn Oracle> = Box::new(Sleepy {
            name: "fast".into(),
            delay: Duration::ZERO,
        });
        let lanes = vec![(0, &mut one), (0, &mut two), (1, &mut other)];
        let mut seen = Vec::new();
        let work = (0..40).map(|i| Ok::<_, ()>(batch(i)));
        run(work, 2, lanes, |w, a| {
            assert_eq!(a.answers.len(), 2);
            assert!(a.answers.iter().all(|per_oracle| per_oracle.len() == 1));
            seen.push(w.files[0].name.clone());
        })
        .unwrap();
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        assert_eq!(seen, names, "each batch finished once, in input order");
    }
}
