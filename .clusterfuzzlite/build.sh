#!/bin/bash -eu
# ClusterFuzzLite build: compile every cargo-fuzz target of fuzz/ and
# package what the oracles need at run time next to the binaries.
#
# The runner starts each binary in $OUT with no environment of ours, so the
# one `robust` target (its oracle is a parameter) is packaged once per
# registered oracle as robust_<oracle>: it reads the oracle from its own
# name. The list comes from the registry (`cargo xtask fuzz targets`).
cd "$SRC/repdiff"

# xtask is a plain host tool: it links the oracles crate, and Google's C++
# compiled with the image's $CFLAGS/$CXXFLAGS (-fsanitize=address,
# -fsanitize=fuzzer-no-link) does not link into a binary without libFuzzer.
# So xtask runs without the sanitizer flags (fuzz/tools/cflite-local found
# this).
# Fuzzing uses neither the parsers' own test suites nor the census data, and
# the texting-robots suite's locked proc-macro2 does not build on the image's
# nightly toolchain: setup skips both. Nor does it install the external
# oracles' runtimes (java, node, ruby, ...): the packaged fuzzers run the
# built-ins only.
xtask() {
  REPDIFF_SETUP_SKIP=runtimes,suites,census-data,warc-sample env -u CFLAGS -u CXXFLAGS -u RUSTFLAGS -u CXXFLAGS_x86_64_unknown_linux_gnu \
    -u RUSTC_WRAPPER cargo xtask "$@"
}

# Fetch and verify the pinned third-party parsers (.cache/), as on a
# developer's machine.
xtask setup

# The fuzzer list comes from the registry.
TARGETS=$(xtask fuzz targets)
# The known-signature list (a corpus run through the oracles, triaged
# against the ledger): the runner has no corpus to derive it from. The
# built-ins only, as the packaged fuzzers run (the runner image has none of
# the external oracles' runtimes: fuzzcore/src/lib.rs adopt_packaged_cache).
REPDIFF_FUZZ_EXTERNAL=0 xtask triage known
# Seed the differential_bytes target with the corpus bodies.
xtask fuzz seed 2>/dev/null || true

# Google's C++ goes through the cc crate: give it the sanitizer flags
# ClusterFuzzLite chose ($CXXFLAGS carries -fsanitize=address/... and
# -fsanitize=fuzzer-no-link), so the C++ is instrumented like the Rust.
export CXX_x86_64_unknown_linux_gnu="$CXX"
export CXXFLAGS_x86_64_unknown_linux_gnu="$CXXFLAGS"
# Coverage instrumentation only in the crates that parse robots.txt (see
# fuzz/tools/coverage-scope): pyo3's, serde's and regex's counters cost
# libFuzzer more per run than the parsers did.
export RUSTC_WRAPPER="$PWD/fuzz/tools/coverage-scope"
cargo fuzz build -O

FUZZ_OUT=fuzz/target/x86_64-unknown-linux-gnu/release
for name in $TARGETS; do
  case "$name" in
    robust_*) cp "$FUZZ_OUT/robust" "$OUT/$name" ;;
    *) cp "$FUZZ_OUT/$name" "$OUT/" ;;
  esac
done

# The oracles find their setup cache next to the binary (see
# fuzzcore/src/lib.rs adopt_packaged_cache); the corpus and ledger are read to
# derive the known-signature list.
mkdir -p "$OUT/repdiff-cache"
cp -r .cache/. "$OUT/repdiff-cache/"
cp fuzz/known-signatures.json "$OUT/"

# libpython: the runner image has none, so ship the one PyO3 linked and
# point the binaries at it.
LIBPY=$(python3.11 -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')
mkdir -p "$OUT/lib"
cp "$LIBPY"/libpython3.11.so* "$OUT/lib/" 2>/dev/null || true
for name in $TARGETS; do
  patchelf --set-rpath '$ORIGIN/lib' "$OUT/$name" 2>/dev/null || true
done
# ...and its stdlib (without the test suite): a target sets PYTHONHOME to
# its own directory when it finds lib/python3.*/os.py there
# (fuzzcore/src/lib.rs adopt_packaged_cache); otherwise the embedded
# interpreter picks up the image's own Python, if any, and fails to import.
STDLIB=$(python3.11 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
mkdir -p "$OUT/lib/$(basename "$STDLIB")"
tar -C "$STDLIB" --exclude=./test --exclude=__pycache__ -cf - . |
  tar -C "$OUT/lib/$(basename "$STDLIB")" -xf -

# Embedded CPython never frees all it allocates at start (its modules,
# OpenSSL's tables), so LeakSanitizer fails every target that starts it:
# libFuzzer's per-input check and ASan's check at exit alike. The runner
# reads <fuzzer>.options: [libfuzzer] flags and [asan] ASAN_OPTIONS. The
# Rust/C++-only robustness targets keep their leak checks.
for name in $TARGETS; do
  case "$name" in
    differential* | robust_cpython* | robust_protego*)
      printf '[libfuzzer]\ndetect_leaks = 0\n[asan]\ndetect_leaks = 0\n' >"$OUT/$name.options" ;;
  esac
done

if [ -d fuzz/corpus/differential_bytes ]; then
  (cd fuzz/corpus/differential_bytes && zip -q "$OUT/differential_bytes_seed_corpus.zip" ./* ) || true
fi
