"""A pytest plugin that records every allow/disallow call a Python suite makes.

Loaded with `-p capture_py` while a parser's own test suite runs against the
parser itself. Each call is recorded as (test, robots body, agent, URL,
returned verdict); the test's outcome is recorded too, so only calls from
passing tests become expectations (in a passing test, the verdict the parser
returned is the one the suite accepted). Calls the oracle protocol cannot
express (crawl-delay, request-rate, sitemaps, a body fetched over HTTP or
decided by a status code) are recorded as skipped, with what they were.

REPDIFF_SUITE_KIND names the parser (cpython, protego, robotspy);
REPDIFF_SUITE_OUT is the JSON file written at the end of the session.
"""

import functools
import json
import os

KIND = os.environ.get("REPDIFF_SUITE_KIND", "")
OUT = os.environ.get("REPDIFF_SUITE_OUT", "suite-capture.json")
STATE = {"test": None, "calls": [], "skipped": [], "tests": {}, "library": None}


def _hex(text):
    if isinstance(text, bytes):
        return text.hex()
    return text.encode("utf-8", "surrogateescape").hex()


def _call(body, agent, url, verdict):
    STATE["calls"].append(
        {
            "test": STATE["test"],
            "body_hex": _hex(body),
            "agent": agent,
            "url": url,
            "allowed": bool(verdict),
        }
    )


def _skip(what):
    STATE["skipped"].append({"test": STATE["test"], "what": what})


def _record_body(method, join):
    """Wrap a parse entry point so the instance remembers the body it was fed."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._repdiff_body = join(args[0] if args else next(iter(kwargs.values())))
        return method(self, *args, **kwargs)

    return wrapper


def _skipping(method, what):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        _skip(what)
        return method(self, *args, **kwargs)

    return wrapper


def _lines(lines):
    # urllib's parse() takes lines; the protocol takes the body they came from.
    lines = list(lines)
    if all(line.endswith("\n") for line in lines[:-1]) and any(
        line.endswith("\n") for line in lines
    ):
        return "".join(lines)
    return "\n".join(lines)


def _patch_cpython():
    from urllib import robotparser as rp

    STATE["library"] = rp.__file__
    cls = rp.RobotFileParser
    cls.parse = _record_body(cls.parse, _lines)
    original = cls.can_fetch

    @functools.wraps(original)
    def can_fetch(self, useragent, url):
        verdict = original(self, useragent, url)
        body = getattr(self, "_repdiff_body", None)
        if body is None or self.disallow_all or self.allow_all:
            _skip("can_fetch decided by an HTTP status or without a body")
        else:
            _call(body, useragent, url, verdict)
        return verdict

    cls.can_fetch = can_fetch
    for name in ("crawl_delay", "request_rate", "site_maps"):
        setattr(cls, name, _skipping(getattr(cls, name), name))


def _patch_protego():
    import protego
    from protego import Protego

    STATE["library"] = protego.__file__
    original_parse = Protego.parse.__func__

    @classmethod
    def parse(cls, content):
        rp = original_parse(cls, content)
        rp._repdiff_body = content
        return rp

    Protego.parse = parse
    original = Protego.can_fetch

    @functools.wraps(original)
    def can_fetch(self, url, user_agent):
        verdict = original(self, url, user_agent)
        _call(self._repdiff_body, user_agent, url, verdict)
        return verdict

    Protego.can_fetch = can_fetch
    for name in ("crawl_delay", "request_rate", "visit_time", "sitemaps", "preferred_host"):
        attr = Protego.__dict__.get(name)
        if callable(attr):
            setattr(Protego, name, _skipping(attr, name))


def _patch_robotspy():
    import robots
    from robots import parser as rparser

    STATE["library"] = rparser.__file__
    cls = rparser.RobotsParser
    for name, join in (("from_string", lambda t: t), ("from_file", _read_file)):
        original = getattr(cls, name).__func__

        def make(original, join):
            @classmethod
            def build(klass, source, *args, **kwargs):
                rp = original(klass, source, *args, **kwargs)
                rp._repdiff_body = join(source)
                return rp

            return build

        setattr(cls, name, make(original, join))
    robots.RobotFileParser.parse = _record_body(robots.RobotFileParser.parse, _lines)
    original = cls.can_fetch

    @functools.wraps(original)
    def can_fetch(self, useragent, url):
        verdict = original(self, useragent, url)
        body = getattr(self, "_repdiff_body", None)
        if body is None or self.disallow_all or self.allow_all:
            _skip("can_fetch on a body fetched by URI or decided by a status")
        else:
            _call(body, useragent, url, verdict)
        return verdict

    cls.can_fetch = can_fetch


def _read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def pytest_configure(config):
    {"cpython": _patch_cpython, "protego": _patch_protego, "robotspy": _patch_robotspy}[KIND]()


def pytest_runtest_setup(item):
    STATE["test"] = item.nodeid


def pytest_runtest_logreport(report):
    # A test passes only if setup, call and teardown all pass.
    previous = STATE["tests"].get(report.nodeid, "passed")
    if report.failed:
        STATE["tests"][report.nodeid] = "failed"
    elif report.skipped and report.when != "teardown":
        STATE["tests"][report.nodeid] = "skipped"
    else:
        STATE["tests"][report.nodeid] = previous


def pytest_collectreport(report):
    if report.failed:
        STATE["tests"][report.nodeid] = "uncollectable: " + str(report.longrepr).strip().splitlines()[-1]


def pytest_sessionfinish(session, exitstatus):
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(
            {key: STATE[key] for key in ("tests", "calls", "skipped", "library")},
            f,
        )
