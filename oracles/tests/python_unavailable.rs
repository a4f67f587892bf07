//! Without setup, every Python oracle is still registered and says what is
//! missing and what to run. (Its own test binary: it points REPDIFF_CACHE at
//! an empty folder, which would race with the other tests.)

#![cfg(feature = "python")]

#[test]
fn without_setup_the_python_oracles_say_run_setup() {
    let empty = std::env::temp_dir().join(format!("repdiff-empty-cache-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    std::env::set_var("REPDIFF_CACHE", &empty);
    let mut seen = 0;
    for entry in oracles::registry() {
        if !["cpython-3.15", "protego", "protego-0.6.1"].contains(&entry.name) {
            continue;
        }
        seen += 1;
        assert_eq!(entry.runtime, oracles::Runtime::Python);
        match (entry.make)() {
            Ok(_) => panic!("{} built without its cache", entry.name),
            Err(u) => {
                assert_eq!(u.oracle, entry.name);
                assert!(u.then_setup && u.fix.is_empty(), "{u}");
                assert!(u.reason.contains(&empty.display().to_string()), "{u}");
            }
        }
    }
    assert_eq!(seen, 3);
    // cpython-3.11 needs no cache: the runtime's own standard library.
    let entry = oracles::registry()
        .into_iter()
        .find(|e| e.name == "cpython-3.11")
        .unwrap();
    assert!((entry.make)().is_ok());
    let _ = std::fs::remove_dir_all(&empty);
}
