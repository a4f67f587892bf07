"""What the Go suite captures (capture_grobotstxt.py,
capture_temoto_robotstxt.py) share: checking the fetched module against its
pins, copying it into a work directory with the capture's patches and
repdiff's recording files, the Go environment that keeps `go test` offline
and inside repdiff's caches, and the JSON forms of recorded bytes. Each
capture keeps only what is its own: its module, pins, patches and how its
tests are run and read.

Recording files are templates (`suite/go/*.go.in`), filled from the module
as fetched, so the checkout never holds a line of the library. A template
line `//repdiff:declaration repdiffX` becomes the declaration line that the
capture's PATCHES rename to repdiffX, `//repdiff:package` the package clause
of the first patched file, and `//repdiff:import PATH` the line of one of
the library's own test files that imports PATH. Anything missing is reported
through the capture's `die`, which stops it.
"""

import hashlib
import os
import re
import shutil


def filled(template, module_dir, patches, pinned, die):
    """The template with its placeholders filled; `patches` are the
    capture's (file, old, new, count) substitutions, `pinned` the module
    files it verified."""

    def read(name):
        with open(os.path.join(module_dir, name), encoding="utf-8") as f:
            return f.read()

    def declaration(m):
        for _, old, new, _ in patches:
            if re.search(r"\b" + m.group(1) + r"\(", new):
                return old
        die(f"no PATCHES entry renames a function to {m.group(1)}")

    def package(_):
        found = re.search(r"^package \w+$", read(patches[0][0]), re.M)
        if not found:
            die(f"{patches[0][0]} has no package clause")
        return found.group(0)

    def imported(m):
        for name in pinned:
            if name.endswith("_test.go"):
                line = re.search(r'^\s*(?:[\w.]+\s+)?"' + re.escape(m.group(1)) + '"$', read(name), re.M)
                if line:
                    return line.group(0)
        die(f"no test file of the library imports {m.group(1)}")

    text = re.sub(r"^//repdiff:declaration (\w+)$", declaration, template, flags=re.M)
    text = re.sub(r"^//repdiff:package$", package, text, flags=re.M)
    return re.sub(r"^\s*//repdiff:import (\S+)$", imported, text, flags=re.M)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def text_or_hex(raw, key):
    """Recorded bytes as `key` when they are UTF-8, else as `key_hex`."""
    try:
        return {key: raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {key + "_hex": raw.hex()}


def prepare(capture, module_dir, src):
    """Copies the pinned module files (go.mod and go.sum from the shim
    directory, which must hold the module's own) into `src`, applies the
    capture's PATCHES and writes its ADDED recording files from their
    templates. `capture` is the capture script's module: MODULE, SHIM_DIR,
    PINNED, PATCHES, ADDED and die."""
    die = capture.die
    for name, want in capture.PINNED.items():
        got = sha256(os.path.join(module_dir, name))
        if got != want:
            die(f"{module_dir}/{name}: sha256 {got}, expected {want} ({capture.MODULE})")
    for name in ("go.mod", "go.sum"):
        if sha256(os.path.join(capture.SHIM_DIR, name)) != capture.PINNED[name]:
            die(f"{capture.SHIM_DIR}/{name} is not the module's own {name}")
    os.makedirs(src)
    for name in capture.PINNED:
        origin = capture.SHIM_DIR if name in ("go.mod", "go.sum") else module_dir
        shutil.copyfile(os.path.join(origin, name), os.path.join(src, name))
    for name, old, new, count in capture.PATCHES:
        path = os.path.join(src, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.count(old) != count:
            die(f"{name}: {old!r} occurs {text.count(old)} times, expected {count}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))
    for name in capture.ADDED:
        # Kept as `<name>.in` in the checkout: repdiff's own Go, compiled
        # only inside this work-dir copy of the module.
        with open(os.path.join(capture.SHIM_DIR, name + ".in"), encoding="utf-8") as f:
            template = f.read()
        with open(os.path.join(src, name), "w", encoding="utf-8") as f:
            f.write(filled(template, module_dir, capture.PATCHES, capture.PINNED, die))


def go_env(capture, module_dir):
    """The environment for `go`: offline, the module and build caches
    beside each other in repdiff's cache. MODULE_DIR is
    <GOMODCACHE>/<module path>@<version> and the build cache
    <GOMODCACHE>/../gobuild (.cache/gomod, .cache/gobuild)."""
    suffix = os.sep + capture.MODULE.replace("/", os.sep)
    if not module_dir.endswith(suffix):
        capture.die(f"{module_dir} is not a module cache directory of {capture.MODULE}")
    gomodcache = module_dir[: -len(suffix)]
    env = dict(os.environ)
    env.update({
        "GOMODCACHE": gomodcache,
        "GOCACHE": os.path.join(os.path.dirname(gomodcache), "gobuild"),
        "GOPROXY": "off",
        "GOSUMDB": "off",
        "GOFLAGS": "-mod=readonly",
        "GOTOOLCHAIN": "local",
        "GOWORK": "off",
        "GOENV": "off",
        "CGO_ENABLED": "0",
    })
    return env
