"""Fills repdiff's Go recording templates (`suite/go/*.go.in`) from the Go
module as fetched, for the Go suite captures (capture_grobotstxt.py,
capture_temoto_robotstxt.py), so the checkout never holds a line of the
library.

A template line `//repdiff:declaration repdiffX` becomes the declaration
line that the capture's PATCHES rename to repdiffX, `//repdiff:package` the
package clause of the first patched file, and `//repdiff:import PATH` the
line of one of the library's own test files that imports PATH. Anything
missing is reported through the capture's `die`, which stops it.
"""

import os
import re


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
