//! What the Python oracles run, pinned. `repdiff setup` fetches exactly
//! this into the cache; the adapters refuse anything else. The values are
//! written once, under `pins:` in each built-in's manifest
//! (`oracles/harness/{protego,protego-0.6.1,cpython-3.15}/oracle.yaml`), and
//! turned into these constants by the build script (`oracles/build/pins.rs`).

include!(concat!(env!("OUT_DIR"), "/pins/protego.rs"));
include!(concat!(env!("OUT_DIR"), "/pins/protego-0.6.1.rs"));
include!(concat!(env!("OUT_DIR"), "/pins/cpython-3.15.rs"));
