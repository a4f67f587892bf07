//! The oracles lint asks, and what each answer means for a site owner.
//!
//! Every question is put to every oracle at once (one thread per oracle,
//! one batch per body), so minimising a file costs as long as the slowest
//! parser, not their sum.

use engine::oracle::{Answer, Label, Oracle, Outcome};
use engine::worker::Limits;

/// How one oracle read one question.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reading {
    Allowed,
    Disallowed,
    /// An error, a crash or a timeout, as its pin label (`error:ValueError`,
    /// `timeout`): reported apart, never counted as a verdict.
    Failed(Label),
    /// The oracle cannot answer this kind of question.
    Unsupported,
}

impl Reading {
    fn of(outcome: &Outcome) -> Reading {
        match outcome {
            Outcome::Allowed => Reading::Allowed,
            Outcome::Disallowed => Reading::Disallowed,
            Outcome::Unsupported { .. } => Reading::Unsupported,
            o => Reading::Failed(o.pin()),
        }
    }

    /// The reading as the label root-cause triage compares.
    pub fn label(&self) -> Label {
        match self {
            Reading::Allowed => Label::Allowed,
            Reading::Disallowed => Label::Disallowed,
            Reading::Failed(label) => label.clone(),
            Reading::Unsupported => Label::Unsupported,
        }
    }
}

/// Every oracle's reading of one question, in panel order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Split(pub Vec<Reading>);

impl Split {
    /// A disagreement: some oracle allows and another disallows.
    pub fn disagrees(&self) -> bool {
        self.0.contains(&Reading::Allowed) && self.0.contains(&Reading::Disallowed)
    }

    /// Indices of the oracles that read the question as `r`.
    pub fn reading(&self, r: &Reading) -> Vec<usize> {
        (0..self.0.len()).filter(|&i| self.0[i] == *r).collect()
    }

    /// Indices and labels of the oracles that failed.
    pub fn failures(&self) -> Vec<(usize, &Label)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                Reading::Failed(label) => Some((i, label)),
                _ => None,
            })
            .collect()
    }
}

/// The running oracles, and how many questions they were asked.
pub struct Panel {
    oracles: Vec<Box<dyn Oracle>>,
    /// Name and version of each, in panel order.
    pub names: Vec<(String, String)>,
    /// Bodies asked so far (each is one call per oracle).
    pub calls: u64,
}

impl Panel {
    pub fn new(oracles: Vec<Box<dyn Oracle>>) -> Panel {
        let names = oracles
            .iter()
            .map(|o| (o.name().to_string(), o.identity().to_string()))
            .collect();
        Panel {
            oracles,
            names,
            calls: 0,
        }
    }

    pub fn size(&self) -> usize {
        self.oracles.len()
    }

    pub fn name(&self, i: usize) -> &str {
        &self.names[i].0
    }

    /// Every oracle's reading of every question on `body`, one split per
    /// question. An oracle answering the wrong number of questions reads
    /// each as `error:protocol`.
    pub fn ask(&mut self, body: &[u8], questions: &[super::Question]) -> Vec<Split> {
        let queries: Vec<engine::oracle::Query> = questions.iter().map(|q| q.query()).collect();
        let per_oracle: Vec<Vec<Reading>> = self
            .answers(body, &queries)
            .iter()
            .map(|answers| answers.iter().map(|a| Reading::of(&a.outcome)).collect())
            .collect();
        (0..questions.len())
            .map(|q| Split(per_oracle.iter().map(|r| r[q].clone()).collect()))
            .collect()
    }

    /// The deciding line of each answer (`crate::deciding::find`), each
    /// oracle in its own thread as [`Panel::answers`] asks them.
    pub fn deciding(
        &mut self,
        body: &[u8],
        queries: &[engine::oracle::Query],
        answers: &[Vec<Answer>],
    ) -> Vec<Vec<Option<crate::deciding::Found>>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .oracles
                .iter_mut()
                .zip(answers)
                .map(|(o, a)| s.spawn(move || crate::deciding::find(o.as_mut(), body, queries, a)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| vec![None; queries.len()]))
                .collect()
        })
    }

    /// Every oracle's answers (outcome and explanation) to `queries` on
    /// `body`, one list per oracle in panel order, each as long as
    /// `queries`: a wrong count reads as `error:protocol`, a harness thread
    /// that panicked as `crash`.
    pub fn answers(&mut self, body: &[u8], queries: &[engine::oracle::Query]) -> Vec<Vec<Answer>> {
        self.calls += 1;
        std::thread::scope(|s| {
            let handles: Vec<_> = self
                .oracles
                .iter_mut()
                .map(|o| {
                    s.spawn(move || {
                        let answers = o.run(body, queries);
                        crate::check::checked_count(o.name(), answers, queries.len())
                            .unwrap_or_else(|(failed, _)| failed)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        (0..queries.len())
                            .map(|_| {
                                Answer::from(Outcome::Crash {
                                    detail: "the oracle's thread panicked".into(),
                                })
                            })
                            .collect()
                    })
                })
                .collect()
        })
    }

    /// Two oracles' readings of one question on `body`, as root-cause
    /// triage compares them; the others are not asked.
    pub fn ask_two(
        &mut self,
        body: &[u8],
        question: &super::Question,
        a: usize,
        b: usize,
    ) -> (Label, Label) {
        let query = [question.query()];
        let mut label = |i: usize| {
            let o = &mut self.oracles[i];
            let answers = o.run(body, &query);
            crate::check::checked_count(o.name(), answers, 1)
                .unwrap_or_else(|(failed, _)| failed)
                .first()
                .map_or(Label::Unsupported, |a| Reading::of(&a.outcome).label())
        };
        (label(a), label(b))
    }

    /// One question's split on `body`.
    pub fn ask_one(&mut self, body: &[u8], question: &super::Question) -> Split {
        self.ask(body, std::slice::from_ref(question))
            .pop()
            .unwrap_or(Split(Vec::new()))
    }
}

/// The RFC 9309 reference, in this process, whatever the selection: lint
/// offers a rewrite only if it keeps what the file means under the RFC.
pub fn reference() -> Option<Box<dyn Oracle>> {
    oracles::registry()
        .into_iter()
        .find(|e| e.name == oracles::rfc9309::NAME)
        .and_then(|e| (e.make)().ok())
}

/// The limits of the workers lint starts.
pub fn limits(timeout: std::time::Duration) -> Limits {
    Limits {
        timeout,
        ..Limits::default()
    }
}
