//! Several inputs in one exchange with a worker.
//!
//! Why: for the small inputs a fuzzer makes, a worker's time goes on the
//! round trip (two wake-ups and two system calls a side), not on the
//! parse. The fuzz loop's lanes have inputs queued, so they send a group of
//! requests in one write and read the answers back in order: the worker
//! finds the next request already buffered and does not sleep between
//! them. The protocol is unchanged (requests were always a stream); only
//! the parent stops waiting between them.
//!
//! Deadlock-free by size: a group's requests together fit in
//! [`GROUP_BYTES`], well under a pipe's capacity, and the worker has read
//! every earlier request before a group is sent (all their answers are in),
//! so the write never blocks on a worker that is blocked writing answers.
//! A failure part-way stops the worker as a single call's failure does; the
//! answers already read stand, a timeout costs its input, and the rest are
//! asked one at a time with the single call's restart and crash accounting.

use super::{read_answers, tap, CallError, RequestRef, Supervised};
use crate::oracle::{Answer, Outcome, Query};
use std::io::Write;

/// The most request bytes (headers and bodies) one exchange sends: a
/// quarter of a pipe's default capacity.
pub(super) const GROUP_BYTES: usize = 16 * 1024;

/// What one exchange did: how many inputs it sent, the answers read (the
/// first of them, in order) and why it stopped short, if it did.
struct Exchange {
    sent: usize,
    answers: Vec<Vec<Answer>>,
    failed: Option<CallError>,
}

impl Supervised {
    /// [`crate::oracle::Oracle::run_many`] for a worker: groups of at most
    /// [`GROUP_BYTES`] in one exchange each.
    pub(super) fn many(&mut self, inputs: &[(&[u8], &[Query])]) -> Vec<Vec<Answer>> {
        let mut all: Vec<Vec<Answer>> = Vec::with_capacity(inputs.len());
        while all.len() < inputs.len() {
            let start = all.len();
            let x = self.exchange(&inputs[start..]);
            let end = start + x.sent.max(1);
            all.extend(x.answers);
            if let (Some(CallError::Timeout), Some((_, queries))) =
                (&x.failed, inputs.get(all.len()))
            {
                all.push(
                    queries
                        .iter()
                        .map(|_| Answer::from(Outcome::Timeout))
                        .collect(),
                );
            }
            // A lone input, or what a failed exchange left: one call each.
            while all.len() < end {
                let (body, queries) = inputs[all.len()];
                all.push(self.batch(None, body, queries));
            }
        }
        all
    }

    /// Send as many of `inputs` as fit in [`GROUP_BYTES`] (a lone input
    /// is not sent: the single call handles it) and read their answers.
    fn exchange(&mut self, inputs: &[(&[u8], &[Query])]) -> Exchange {
        let nothing = |sent| Exchange {
            sent,
            answers: Vec::new(),
            failed: None,
        };
        let explain = self.explain;
        let cpu_ms = self.cpu_ms();
        let mut message = Vec::with_capacity(GROUP_BYTES);
        let mut sent = 0;
        for (body, queries) in inputs {
            let mark = message.len();
            let header = RequestRef::Run {
                body_len: body.len(),
                queries,
                explain,
                cpu_ms,
            };
            if serde_json::to_writer(&mut message, &header).is_err() {
                return nothing(sent.max(1));
            }
            if sent > 0 && message.len() + 1 + body.len() > GROUP_BYTES {
                message.truncate(mark);
                break;
            }
            tap(&self.name, "request", &message[mark..]);
            message.push(b'\n');
            message.extend_from_slice(body);
            sent += 1;
        }
        if sent < 2 || self.ensure_live().is_err() {
            return nothing(sent);
        }
        let Some(live) = self.live.as_mut() else {
            return nothing(sent);
        };
        if live
            .stdin
            .write_all(&message)
            .and_then(|()| live.stdin.flush())
            .is_err()
        {
            self.kill();
            self.consecutive_failures += 1;
            return nothing(sent);
        }
        let mut answers = Vec::with_capacity(sent);
        for (_, queries) in &inputs[..sent] {
            let budget = self.limits.budget(queries.len());
            let timeout = self.cap.map_or(budget, |cap| cap.min(budget));
            let Some(live) = self.live.as_mut() else {
                break;
            };
            match read_answers(live, &self.name, timeout, queries.len(), &self.limits) {
                Ok(a) => answers.push(a),
                Err(e) => {
                    self.kill();
                    self.consecutive_failures += 1;
                    return Exchange {
                        sent,
                        answers,
                        failed: Some(e),
                    };
                }
            }
        }
        self.consecutive_failures = 0;
        self.restarts_in_a_row = 0;
        Exchange {
            sent,
            answers,
            failed: None,
        }
    }
}
