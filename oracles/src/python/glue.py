"""repdiff's glue between the Rust adapters and the Python robots.txt parsers.

Loaded once per process as the module ``_repdiff_glue`` (the source is
``oracles/src/python/glue.py``, compiled into the binary). It feeds each
library exactly the way the library's own users do, parses once per case,
answers many queries, and turns every answer into a small tagged tuple that
``oracles/src/python/mod.rs`` maps onto ``engine::oracle::Value``:

    ("allowed",) ("disallowed",) ("none",) ("int", i) ("bigint", "digits")
    ("float", f) ("rate", requests, seconds, extra) ("list", [bytes, ...])
    ("unrepresentable", text) ("unexpected", text) ("error", kind, message)

A Python exception is an ``("error", type name, message)``, never a verdict.
"""

import hashlib
import importlib.metadata
import importlib.util
import os
import site
import socket
import sys
import threading
import types

# ---------------------------------------------------------------------------
# Answers


def _text(s):
    """A message as valid UTF-8 (lone surrogates become \\udcxx escapes)."""
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def _raw(s):
    """The original bytes of a string cut out of a surrogateescape-decoded body."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "backslashreplace")


def _error(e):
    return ("error", type(e).__name__, _text(str(e)))


def _verdict(v):
    # Users write `if rp.can_fetch(...)`: truthiness is the verdict.
    return ("allowed",) if v else ("disallowed",)


def _number(v):
    if v is None:
        return ("none",)
    if isinstance(v, bool):
        return ("unexpected", "bool " + repr(v))
    if isinstance(v, int):
        if -(2**63) <= v < 2**63:
            return ("int", v)
        return ("bigint", str(v))
    if isinstance(v, float):
        return ("float", v)
    return ("unexpected", _text(type(v).__name__ + " " + repr(v)))


def _rate(r):
    if r is None:
        return ("none",)
    try:
        requests, seconds = r[0], r[1]
    except Exception:
        return ("unexpected", _text(type(r).__name__ + " " + repr(r)))
    # protego's RequestRate also carries start_time/end_time: keep them in the
    # explanation, Value::Rate has no room for them.
    fields = getattr(r, "_fields", ())
    extra = ", ".join(
        f"{name}={getattr(r, name)}"
        for name in fields[2:]
        if getattr(r, name) is not None
    )
    ok = all(
        isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**64
        for x in (requests, seconds)
    )
    if not ok:
        return ("unrepresentable", _text(f"request rate {requests!r}/{seconds!r}"))
    return ("rate", requests, seconds, _text(extra))


def _sitemaps(v):
    if v is None:
        return ("none",)
    return ("list", [_raw(s) for s in v])


# ---------------------------------------------------------------------------
# CPython's urllib.robotparser


def cpython_stdlib():
    """The runtime's own urllib.robotparser (CPython 3.11 here)."""
    import urllib.robotparser

    return urllib.robotparser.RobotFileParser


ROBOTPARSER_315 = "_repdiff_cpython315_robotparser"
PARSE_315 = "_repdiff_cpython315_urllib_parse"

# The two private helpers robotparser.py of CPython 3.15 calls and 3.11's
# urllib.parse lacks. Written for repdiff after the 3.15 semantics:
# `_urlsplit` is `urlsplit` without the cache and the result class, and an
# absent component is None instead of '' (so "/a?" keeps an empty query and
# "/a" has none); `_urlunsplit` puts back exactly the components that are not
# None. Bracketed hosts are checked the 3.15 way ("v"/"V" IPvFuture, nothing
# but ":port" after "]"). They are executed inside a private copy of the
# runtime's urllib.parse, so the names they use are that module's globals.
_HELPERS_315 = r'''
def _repdiff_check_bracketed_host_315(hostname):
    if hostname[:1] in ("v", "V"):
        if re.match(r"\A[vV][a-fA-F0-9]+\..+\Z", hostname) is None:
            raise ValueError("IPvFuture address is invalid")
        return
    if isinstance(ipaddress.ip_address(hostname), ipaddress.IPv4Address):
        raise ValueError("An IPv4 address cannot be in brackets")


def _repdiff_check_bracketed_netloc_315(netloc):
    host_port = netloc.rpartition("@")[2]
    before, bracket, rest = host_port.partition("[")
    if bracket:
        if before:
            raise ValueError("Invalid IPv6 URL")
        hostname, _, port = rest.partition("]")
        if port and port[0] != ":":
            raise ValueError("Invalid IPv6 URL")
    else:
        hostname = host_port.partition(":")[0]
    _repdiff_check_bracketed_host_315(hostname)


def _urlsplit(url, scheme=None, allow_fragments=True):
    url = url.lstrip(_WHATWG_C0_CONTROL_OR_SPACE)
    for unsafe in _UNSAFE_URL_BYTES_TO_REMOVE:
        url = url.replace(unsafe, "")
    if scheme is not None:
        scheme = scheme.strip(_WHATWG_C0_CONTROL_OR_SPACE)
        for unsafe in _UNSAFE_URL_BYTES_TO_REMOVE:
            scheme = scheme.replace(unsafe, "")
    netloc = None
    query = None
    fragment = None
    colon = url.find(":")
    if (colon > 0 and url[0].isascii() and url[0].isalpha()
            and all(c in scheme_chars for c in url[:colon])):
        scheme = url[:colon].lower()
        url = url[colon + 1:]
    if url[:2] == "//":
        netloc, url = _splitnetloc(url, 2)
        if ("[" in netloc) != ("]" in netloc):
            raise ValueError("Invalid IPv6 URL")
        if "[" in netloc:
            _repdiff_check_bracketed_netloc_315(netloc)
    if allow_fragments and "#" in url:
        url, fragment = url.split("#", 1)
    if "?" in url:
        url, query = url.split("?", 1)
    _checknetloc(netloc)
    return (scheme, netloc, url, query, fragment)


def _urlunsplit(scheme, netloc, url, query, fragment):
    if netloc is not None:
        if url and url[:1] != "/":
            url = "/" + url
        url = "//" + netloc + url
    elif url[:2] == "//":
        url = "//" + url
    if scheme:
        url = scheme + ":" + url
    if query is not None:
        url = url + "?" + query
    if fragment is not None:
        url = url + "#" + fragment
    return url
'''


def _private_parse_315():
    """A fresh copy of the runtime's urllib.parse plus the 3.15 helpers. The
    global urllib.parse is left untouched."""
    import urllib.parse

    spec = importlib.util.spec_from_file_location(PARSE_315, urllib.parse.__file__)
    parse = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parse)
    exec(compile(_HELPERS_315, "<repdiff: 3.15 urllib.parse helpers>", "exec"), parse.__dict__)
    return parse


def cpython315(path, sha256):
    """Load robotparser.py of CPython 3.15 unmodified, under its own module
    name, with a private `urllib` namespace whose `parse` is
    `_private_parse_315()`. Returns its RobotFileParser class."""
    mod = sys.modules.get(ROBOTPARSER_315)
    if mod is not None:
        if mod.__file__ != path:
            raise RuntimeError(f"{ROBOTPARSER_315} already loaded from {mod.__file__}")
        return mod.RobotFileParser
    with open(path, "rb") as f:
        source = f.read()
    got = hashlib.sha256(source).hexdigest()
    if got != sha256:
        raise RuntimeError(f"sha256 of {path} is {got}, expected {sha256}")
    import urllib.error
    import urllib.request

    namespace = types.ModuleType("urllib")
    namespace.__path__ = []
    namespace.parse = _private_parse_315()
    namespace.error = urllib.error
    namespace.request = urllib.request
    mod = types.ModuleType(ROBOTPARSER_315)
    mod.__file__ = path
    # Exactly the bytes just hashed.
    exec(compile(source, path, "exec"), mod.__dict__)
    # Its `import urllib.parse` bound the global package; every use of
    # `urllib` is inside a function, so rebinding after the import works.
    mod.urllib = namespace
    sys.modules[ROBOTPARSER_315] = mod
    return mod.RobotFileParser


def _answer_cpython(rp, queries):
    out = []
    for ask, agent, url in queries:
        try:
            if ask == "can_fetch":
                out.append(_verdict(rp.can_fetch(agent, url)))
            elif ask == "crawl_delay":
                out.append(_number(rp.crawl_delay(agent)))
            elif ask == "request_rate":
                out.append(_rate(rp.request_rate(agent)))
            elif ask == "sitemaps":
                out.append(_sitemaps(rp.site_maps()))
            else:
                out.append(("unexpected", "unknown ask " + ask))
        except Exception as e:
            out.append(_error(e))
    return out


def _run_cpython(cls, body, queries, errors):
    try:
        rp = cls()
        rp.parse(body.decode("utf-8", errors).splitlines())
    except Exception as e:
        return [_error(e)] * len(queries)
    return _answer_cpython(rp, queries)


def run_cpython_311(cls, body, queries):
    """What 3.11's RobotFileParser.read() does with a 200 body
    (`self.parse(raw.decode("utf-8").splitlines())`: strict, so one byte
    that is not UTF-8 makes read() raise UnicodeDecodeError and every
    question fails), then the queries."""
    return _run_cpython(cls, body, queries, "strict")


def run_cpython_315(cls, body, queries):
    """What 3.15's read() does with a 200 body (it decodes with
    surrogateescape), then the queries."""
    return _run_cpython(cls, body, queries, "surrogateescape")


def fetch_cpython(cls, robots_url, queries, timeout):
    """set_url() + read() with the library's own fetcher, then the queries."""
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout)
    try:
        rp = cls()
        rp.set_url(robots_url)
        rp.read()
    except Exception as e:
        return [_error(e)] * len(queries)
    finally:
        socket.setdefaulttimeout(previous)
    return _answer_cpython(rp, queries)


# ---------------------------------------------------------------------------
# protego


# One load at a time: the module is in sys.modules before exec_module has
# run it (its submodules import through that entry), so without the lock a
# second thread could take a half-loaded module (no attribute 'Protego').
_LOAD_LOCK = threading.Lock()


def protego(site_packages, module_name):
    """Load the protego package of one venv under its own module name (two
    versions can live in one interpreter). Returns (Protego, version)."""
    with _LOAD_LOCK:
        site.addsitedir(site_packages)
        dists = list(importlib.metadata.distributions(name="protego", path=[site_packages]))
        if not dists:
            raise RuntimeError(f"no protego distribution in {site_packages}")
        version = dists[0].version
        package_dir = os.path.realpath(os.path.join(site_packages, "protego"))
        mod = sys.modules.get(module_name)
        if mod is None:
            spec = importlib.util.spec_from_file_location(
                module_name,
                os.path.join(package_dir, "__init__.py"),
                submodule_search_locations=[package_dir],
            )
            mod = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = mod
            try:
                spec.loader.exec_module(mod)
            except BaseException:
                del sys.modules[module_name]
                raise
        return mod.Protego, version


def run_protego(cls, body, queries):
    """Protego.parse(text) with text decoded as its main user, Scrapy's
    ProtegoRobotParser, decodes a 200 body (scrapy/robotstxt.py 2.19.0,
    decode_robotstxt: `body.decode("utf-8-sig", errors="ignore")`, so a
    BOM goes and a byte that is not UTF-8 is dropped), then the queries."""
    try:
        rp = cls.parse(body.decode("utf-8-sig", "ignore"))
    except Exception as e:
        return [_error(e)] * len(queries)
    out = []
    for ask, agent, url in queries:
        try:
            if ask == "can_fetch":
                out.append(_verdict(rp.can_fetch(url, agent)))
            elif ask == "crawl_delay":
                out.append(_number(rp.crawl_delay(agent)))
            elif ask == "request_rate":
                out.append(_rate(rp.request_rate(agent)))
            elif ask == "sitemaps":
                out.append(_sitemaps(list(rp.sitemaps)))
            else:
                out.append(("unexpected", "unknown ask " + ask))
        except Exception as e:
            out.append(_error(e))
    return out


def runtime():
    """(sys.version, the libpython file this process really loaded)."""
    lib = ""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libpython" in line:
                    lib = line.split()[-1]
                    break
    except OSError:
        pass
    return sys.version, lib
