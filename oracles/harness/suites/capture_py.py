"""A pytest plugin that records every allow/disallow call a Python suite makes.

Loaded with `-p capture_py` while a parser's own test suite runs against the
parser itself. Each call is recorded as (test, robots body, agent, URL,
returned verdict); the test's outcome is recorded too, so only calls from
passing tests become expectations (in a passing test, the verdict the parser
returned is the one the suite accepted). Calls the oracle protocol cannot
express (crawl-delay, request-rate, sitemaps, a body fetched over HTTP or
decided by a status code) are recorded as skipped, with what they were.

REPDIFF_SUITE_KIND names the parser (cpython, protego, robotspy, rerp);
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


# The rerp shim's nesting depth: a library call made from inside another
# recorded one (fetch() reading expiration_date, is_expired reading it) is
# the library's own business, not one more thing the test asked.
_RERP_DEPTH = [0]


def _rerp_skip(what):
    if _RERP_DEPTH[0] == 0:
        _skip(what)


def _rerp_nested(function, what):
    """function, recording `what` as skipped when a test (not the library) calls it."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        _rerp_skip(what)
        _RERP_DEPTH[0] += 1
        try:
            return function(*args, **kwargs)
        finally:
            _RERP_DEPTH[0] -= 1

    return wrapper


def _patch_rerp():
    """robotexclusionrulesparser 1.7.1: parse(s) gives the body (the
    RobotFileParserLookalike's parse(lines) and can_fetch go through the base
    class's parse and is_allowed, so each is seen once); is_allowed(agent,
    url[, syntax]) the verdict. The oracle is fed as Scrapy feeds it: the
    default GYM2008 syntax, a str body. So an MK1996 call, a bytes body
    (decoded as ISO-8859-1 by the library, as UTF-8 by Scrapy), a parser that
    fetch()ed its rules over HTTP (or from a status code) and every
    non-verdict read (crawl delay, sitemaps, expiration, response code) are
    skipped, naming what they were."""
    import robotexclusionrulesparser as rerp

    STATE["library"] = rerp.__file__
    cls = rerp.RobotExclusionRulesParser
    original_parse = cls.parse

    @functools.wraps(original_parse)
    def parse(self, s):
        self._repdiff_fetched = False
        self._repdiff_body = None if isinstance(s, (bytes, bytearray)) else s
        return original_parse(self, s)

    original_fetch = cls.fetch

    @functools.wraps(original_fetch)
    def fetch(self, *args, **kwargs):
        try:
            return original_fetch(self, *args, **kwargs)
        finally:
            self._repdiff_fetched = True
            self._repdiff_body = None

    original = cls.is_allowed

    @functools.wraps(original)
    def is_allowed(self, user_agent, url, syntax=rerp.GYM2008):
        verdict = original(self, user_agent, url, syntax)
        body = getattr(self, "_repdiff_body", None)
        if syntax != rerp.GYM2008:
            _rerp_skip("is_allowed with the MK1996 syntax (Scrapy asks with the default GYM2008)")
        elif getattr(self, "_repdiff_fetched", False):
            _rerp_skip("is_allowed on rules fetch()ed over HTTP or decided by a status code")
        elif body is None:
            _rerp_skip("is_allowed without a str body parsed (none, or bytes)")
        elif _RERP_DEPTH[0] == 0:
            _call(body, user_agent, url, verdict)
        return verdict

    cls.parse = parse
    cls.fetch = _rerp_nested(fetch, "fetch: robots.txt read over HTTP")
    cls.is_allowed = is_allowed
    cls.get_crawl_delay = _rerp_nested(cls.get_crawl_delay, "get_crawl_delay")
    for name in ("sitemap", "sitemaps", "is_expired", "source_url", "response_code"):
        prop = cls.__dict__[name]
        setattr(cls, name, property(_rerp_nested(prop.fget, name)))
    # An instance attribute in the library; a property here so a test
    # reading it is seen. The value lives where the library would keep it.
    cls.expiration_date = property(
        _rerp_nested(lambda self: self.__dict__["expiration_date"], "expiration_date"),
        lambda self, value: self.__dict__.__setitem__("expiration_date", value),
    )


def _read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def pytest_configure(config):
    {
        "cpython": _patch_cpython,
        "protego": _patch_protego,
        "robotspy": _patch_robotspy,
        "rerp": _patch_rerp,
    }[KIND]()


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
