//! A Rust parser that panics must cost one cell, not the run.

use engine::oracle::{Answer, Outcome};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`, turning a panic into `Outcome::Crash` with the panic message.
/// The default hook is silenced while `f` runs so a fuzzing or conformance
/// log is not flooded with backtraces for an outcome we already record.
pub fn guard(f: impl FnOnce() -> Answer) -> Answer {
    quiet_panics();
    GUARDING.with(|g| g.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDING.with(|g| g.set(false));
    match result {
        Ok(answer) => answer,
        Err(payload) => Answer::from(Outcome::Crash {
            detail: format!("panic: {}", panic_message(&payload)),
        }),
    }
}

pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

thread_local! {
    static GUARDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installed once per process: silent only inside `guard`, so a panic of our
/// own code elsewhere still prints as usual.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDING.with(|g| g.get()) {
                default(info);
            }
        }));
    });
}
