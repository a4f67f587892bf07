//! The one adapter body every embedded Python oracle shares: the library's
//! class held by PyO3, and the names of the `glue.py` functions that feed it.
//! What differs between CPython and protego (how the class is loaded, how
//! it is fed, whether it owns a fetcher) is data given to [`GlueOracle`],
//! so a new Python parser adds a loader and a glue function, not a trait
//! implementation.

use super::{call_glue, error_all, py_queries, run_glue};
use engine::oracle::{unsupported_all, About, Answer, Capabilities, Oracle, Query};
use pyo3::prelude::*;

/// A fetcher the library owns (`set_url` + `read`): the glue function that
/// drives it and the socket timeout it gets, in seconds as
/// `socket.setdefaulttimeout` takes them.
pub struct Fetcher {
    pub glue: &'static str,
    pub timeout_secs: f64,
}

pub struct GlueOracle {
    pub name: &'static str,
    pub about: About,
    /// The library's parser class (`RobotFileParser`, `Protego`).
    pub class: Py<PyAny>,
    /// The `glue.py` function that parses a body and answers the queries.
    pub run: &'static str,
    pub fetcher: Option<Fetcher>,
}

impl Oracle for GlueOracle {
    fn name(&self) -> &str {
        self.name
    }

    fn about(&self) -> About {
        self.about.clone()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            crawl_delay: true,
            request_rate: true,
            sitemaps: true,
            http_fetch: self.fetcher.is_some(),
        }
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        run_glue(&self.class, self.run, body, queries)
    }

    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        let Some(fetcher) = &self.fetcher else {
            return unsupported_all(queries, "this library has no HTTP fetcher");
        };
        Python::attach(|py| {
            let args = (
                self.class.bind(py).clone(),
                robots_url,
                py_queries(queries),
                fetcher.timeout_secs,
            )
                .into_pyobject(py);
            match args {
                Ok(args) => call_glue(py, fetcher.glue, args, queries.len()),
                Err(e) => error_all(py, &e, queries.len()),
            }
        })
    }
}
