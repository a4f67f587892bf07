"""A direct run of a Python robots.txt library, called the way its users call
it, for repdiff's fidelity checks (oracles/tests/it/python_fidelity.rs and
`cargo xtask verify-cpython315`). Deliberately shares no code with glue.py:
it is the reference the adapters are compared against.

Request (JSON, on stdin, or passed to run() under pyodide):
    {"library": "cpython" | "protego",
     "loader": {"kind": "stdlib"}
             | {"kind": "file315", "robotparser": PATH, "stdlib_zip": PATH},
     "cases": [{"body": HEX, "queries": [[ask, agent, url], ...]}, ...]}
Reply: {"sys_version": ..., "library": ..., "results": [[answer, ...], ...]}
with each answer one of ["allowed"], ["disallowed"], ["none"],
["int", DIGITS], ["float", REPR], ["rate", DIGITS, DIGITS],
["list", [HEX of the surrogateescape-encoded string, ...]],
["error", TYPE NAME, MESSAGE], ["other", REPR].
"""

import json
import sys


def _text(s):
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def _error(e):
    return ["error", type(e).__name__, _text(str(e))]


def _encode(ask, v):
    if ask == "can_fetch":
        return ["allowed"] if v else ["disallowed"]
    if v is None:
        return ["none"]
    if ask == "crawl_delay":
        if isinstance(v, bool):
            return ["other", repr(v)]
        if isinstance(v, int):
            return ["int", str(v)]
        if isinstance(v, float):
            return ["float", repr(v)]
        return ["other", _text(repr(v))]
    if ask == "request_rate":
        return ["rate", str(v.requests), str(v.seconds)]
    if ask == "sitemaps":
        return ["list", [s.encode("utf-8", "surrogateescape").hex() for s in v]]
    return ["other", "unknown ask " + ask]


def _load_315(robotparser, stdlib_zip):
    """robotparser.py of 3.15 with the helpers it needs taken from CPython
    3.15's own urllib/parse.py (out of pyodide's python_stdlib.zip) and
    patched into this process's urllib.parse."""
    import ast
    import importlib.util
    import urllib.parse
    import zipfile

    with zipfile.ZipFile(stdlib_zip) as z:
        source = z.read("urllib/parse.py").decode("utf-8")
    wanted = {"_urlsplit", "_urlunsplit", "_check_bracketed_netloc", "_check_bracketed_host"}
    funcs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    if {f.name for f in funcs} != wanted:
        raise RuntimeError("3.15 urllib/parse.py lacks some of " + ", ".join(sorted(wanted)))
    module = ast.Module(body=funcs, type_ignores=[])
    for node in ast.walk(module):
        # \z (3.14+) is spelt \Z in older re; both mean "end of string".
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = node.value.replace("\\z", "\\Z")
    exec(compile(module, "<3.15 urllib/parse.py helpers>", "exec"), urllib.parse.__dict__)
    spec = importlib.util.spec_from_file_location("robotparser_315_direct", robotparser)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.RobotFileParser, robotparser


def _cpython(loader):
    if loader["kind"] == "stdlib":
        import urllib.robotparser

        return urllib.robotparser.RobotFileParser, urllib.robotparser.__file__
    if loader["kind"] == "file315":
        return _load_315(loader["robotparser"], loader["stdlib_zip"])
    raise ValueError("unknown loader " + loader["kind"])


def run(request_json):
    request = json.loads(request_json)
    results = []
    if request["library"] == "cpython":
        cls, library = _cpython(request["loader"])
        for case in request["cases"]:
            body = bytes.fromhex(case["body"])
            queries = case["queries"]
            try:
                rp = cls()
                # each version's read(): 3.11 strict, 3.15 surrogateescape
                errors = "surrogateescape" if request["loader"]["kind"] == "file315" else "strict"
                rp.parse(body.decode("utf-8", errors).splitlines())
            except Exception as e:
                results.append([_error(e)] * len(queries))
                continue
            answers = []
            for ask, agent, url in queries:
                try:
                    if ask == "can_fetch":
                        v = rp.can_fetch(agent, url)
                    elif ask == "crawl_delay":
                        v = rp.crawl_delay(agent)
                    elif ask == "request_rate":
                        v = rp.request_rate(agent)
                    else:
                        v = rp.site_maps()
                    answers.append(_encode(ask, v))
                except Exception as e:
                    answers.append(_error(e))
            results.append(answers)
    elif request["library"] == "protego":
        import importlib.metadata

        import protego
        from protego import Protego

        library = "protego %s %s" % (importlib.metadata.version("protego"), protego.__file__)
        for case in request["cases"]:
            body = bytes.fromhex(case["body"])
            queries = case["queries"]
            try:
                rp = Protego.parse(body.decode("utf-8-sig", "ignore"))  # as Scrapy decodes it
            except Exception as e:
                results.append([_error(e)] * len(queries))
                continue
            answers = []
            for ask, agent, url in queries:
                try:
                    if ask == "can_fetch":
                        v = rp.can_fetch(url, agent)
                    elif ask == "crawl_delay":
                        v = rp.crawl_delay(agent)
                    elif ask == "request_rate":
                        v = rp.request_rate(agent)
                    else:
                        v = list(rp.sitemaps)
                    answers.append(_encode(ask, v))
                except Exception as e:
                    answers.append(_error(e))
            results.append(answers)
    else:
        raise ValueError("unknown library " + request["library"])
    return json.dumps({"sys_version": sys.version, "library": library, "results": results})


if __name__ == "__main__" and sys.platform != "emscripten":
    sys.stdout.write(run(sys.stdin.read()))
