//! The local HTTP server for the status matrix (127.0.0.1, ephemeral port).

use engine::case::Case;

pub struct Server;

impl Server {
    /// None when no case needs HTTP.
    pub fn start(cases: &[&Case]) -> Option<Server> {
        let _ = cases;
        None
    }

    pub fn url_for(&self, case: &Case) -> Option<String> {
        let _ = case;
        None
    }
}
