/*
 * repdiff oracle harness (protocol v2, docs/protocol.md) for Heritrix 3's
 * robots.txt code: Maven Central org.archive.heritrix:heritrix-modules 3.13.0
 * (the newest release Maven Central serves; git tags 3.14.0 to 3.15.0 exist
 * upstream but were never published there), classes
 * org.archive.modules.net.Robotstxt and RobotsDirectives.
 *
 * What runs: the lib dir setup fills from Maven Central (pom.xml; every jar
 * pinned in jars.sha256) and nothing else, no stand-ins, no stubs. The
 * harness loads classes from these 11 (checked with -Xlog:class+load over
 * thousands of nasty cases):
 *   heritrix-modules 3.13.0   Robotstxt, RobotsDirectives, CrawlMetadata
 *                             (user agent), ExtractorRobotsTxt (sitemaps)
 *   heritrix-commons 3.13.0   UURI, UURIFactory, KeyedProperties
 *   webarchive-commons 3.0.2  UsableURIFactory, UsableURI, URI, LaxURLCodec,
 *                             TextUtils, ArchiveUtils
 *   commons-codec 1.20.0      URLCodec (escaping and decoding of the path)
 *   commons-io 2.21.0         IOUtils (Robotstxt closes its reader with it)
 *   guava 33.5.0-jre + failureaccess 1.0.3   TextUtils' regex cache
 *   libidn 1.15               IDNA.toASCII of every host
 *   org.json 20250517         the protocol's JSON input (in Heritrix's own
 *                             tree: webarchive-commons, Processor, CrawlURI)
 *   spring-beans 7.0.1, spring-context 7.0.1   six interfaces only (Aware,
 *                             BeanNameAware, InitializingBean, Lifecycle,
 *                             Validator, Errors: Processor, the base of
 *                             ExtractorRobotsTxt, and CrawlMetadata implement
 *                             or hold them); no Spring code runs
 * The 12th jar, commons-lang3 3.19.0, is loaded only by HeritrixDirect
 * (Recorder's StringUtils). The rest of heritrix-modules' tree (Jetty,
 * Groovy, PDFBox, BDB JE, Kryo, httpclient, crawler-commons...) is excluded:
 * no class of it is on this path.
 *
 * Build and run (CACHE = .cache; Java 17 is enough, every class file of
 * these jars is major version 61 or lower):
 *   javac --release 17 -encoding UTF-8 -cp "$CACHE/jvm/heritrix/lib/*" \
 *       -d $CACHE/jvm/heritrix/classes oracles/harness/heritrix/src/*.java
 *   java -Dfile.encoding=UTF-8 -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
 *       -cp "$CACHE/jvm/heritrix/classes:$CACHE/jvm/heritrix/lib/*" HeritrixOracle
 * (-Dfile.encoding=UTF-8 is required, see below; the GC/JIT flags only
 * halve the start-up.)
 *
 * Upstream: the robots code (net/Robotstxt, RobotsDirectives, CrawlServer,
 * *RobotsPolicy, ExtractorRobotsTxt, CrawlMetadata, PreconditionEnforcer) is
 * byte-identical from tag 3.13.0 to tag 3.15.0; 3.15.0 moves to
 * webarchive-commons 3.0.4 (URI handling), which Maven Central has no
 * heritrix-modules release for.
 *
 * Fed as the crawler feeds it (Heritrix 3.13.0 sources, tag 3.13.0, the
 * same as the -sources jar on Maven Central):
 *
 * - Body: CrawlServer.updateRobots (modules/.../net/CrawlServer.java:180-183)
 *   does `new Robotstxt(new InputStreamReader(contentReplayInputStream))`:
 *   the JVM's DEFAULT charset, not the charset FetchHTTP puts on the recorder
 *   from Content-Type (FetchHTTP.java:601-605 sets it; updateRobots ignores
 *   it). The harness makes exactly that call on the raw body bytes. The
 *   default charset is UTF-8 on Java 18+ (Heritrix's own Docker image runs
 *   Java 21); on this Java 17 it follows the locale, so the run command sets
 *   -Dfile.encoding=UTF-8, and a JVM whose default is anything else answers
 *   `unavailable`. So: malformed bytes become U+FFFD, a BOM stays as U+FEFF
 *   (and is not trimmed: a first line "\uFEFFUser-agent: x" is an unknown
 *   line). Robotstxt itself reads at most MAX_SIZE = 500*1024 chars and drops
 *   the last (partial) line when it fills the buffer (Robotstxt.java:91-107);
 *   the harness passes the whole stream, so the library does that cut.
 *   A 2xx status is assumed (other statuses mean allow-all, 3xx and 5xx
 *   included: CrawlServer.java:171-176).
 *
 * - can_fetch: the decision path is PreconditionEnforcer (heritrix-engine,
 *   crawler/prefetch/PreconditionEnforcer.java:164-268), then ObeyRobotsPolicy
 *   (the default "obey" policy, CrawlMetadata.java:58):
 *   1. The URL becomes a UURI by UURIFactory.getInstance(url), as for any
 *      CrawlURI made from an absolute URL; a URL it refuses (URIException:
 *      over 2083 chars, bad port, bad host, relative...) never reaches the
 *      robots check: `error` with the exception class.
 *   2. A scheme other than http/https is not checked against robots.txt at
 *      all (PreconditionEnforcer.java:171-176): allowed.
 *   3. uuri.getPath() (percent-decoded) equal to "/robots.txt" is let through
 *      without a robots check (PreconditionEnforcer.java:208-212): allowed.
 *      This exemption is the crawler's, not the library's; it is replicated
 *      because it is on every URI's decision path.
 *   4. robotstxt.getDirectivesFor(ua).allows(uuri.getPathQuery())
 *      (ObeyRobotsPolicy.java:33; getPathQuery is percent-DECODED path + "?"
 *      + query; a URIException there gives "" as RobotsPolicy.java:47-54).
 * - User agent: PreconditionEnforcer passes metadata.getUserAgent(), the
 *   crawler's FULL user-agent string, not lower-cased (Robotstxt lower-cases
 *   only the robots.txt names and finds the first whose indexOf in the UA is
 *   >= 0). The query's agent is taken as the crawler's name token: the UA is
 *   CrawlMetadata.getUserAgent() for the template Heritrix ships
 *   ("Mozilla/5.0 (compatible; heritrix/@VERSION@ +@OPERATOR_CONTACT_URL@)")
 *   with "heritrix/@VERSION@" replaced by the agent and the contact URL
 *   http://example.test/contact, i.e.
 *   "Mozilla/5.0 (compatible; MyBot +http://example.test/contact)".
 *   An agent that already looks like a full UA (holds a space or '(') is the
 *   UA verbatim. (Heritrix's job validator would refuse a template without
 *   @OPERATOR_CONTACT_URL@; the verbatim case skips that.) So the fixed
 *   words of the UA take part in matching: "User-agent: compatible", "http",
 *   "a", "" (empty) all capture every agent, "User-agent: MyBot" (stored
 *   lower-cased) never matches the UA's "MyBot".
 * - crawl_delay: getDirectivesFor(ua).getCrawlDelay(), float seconds, as
 *   DispositionProcessor reads it (engine, DispositionProcessor.java:262);
 *   -1 (never set) is none. The float is shown as its Float.toString decimal;
 *   an infinite one (an overlong digit string) is an error
 *   repdiff.Unrepresentable.
 * - sitemaps: the crawler gets them from ExtractorRobotsTxt (in the default
 *   crawler-beans profile), not from Robotstxt: parseRobotsTxt(body stream)
 *   (BufferedReader over an InputStreamReader, default charset again, whole
 *   body, no size cap), each value as matched, before any URI resolution.
 * - request_rate: unsupported (Robotstxt ignores Request-rate).
 *
 * Upstream reports: heritrix3 #250 (full wildcard syntax; closed by PR #656,
 * released in 3.10.0), #353 and #371 (users told in 2021 that wildcards and
 * sitemaps were unsupported; both are in 3.13.0). The RFC 9309 deviations
 * this harness shows are listed in the report, not fixed here.
 *
 * stdin is read as bytes: a JSON line, then exactly body_len raw bytes.
 * stdout carries only protocol lines, ASCII JSON (non-ASCII as \\u escapes,
 * a lone surrogate as \\ufffd), flushed after each line; logging (Robotstxt
 * warns on >500 KiB bodies) goes to stderr.
 */

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.archive.modules.CrawlMetadata;
import org.archive.modules.extractor.ExtractorRobotsTxt;
import org.archive.modules.net.RobotsDirectives;
import org.archive.modules.net.Robotstxt;
import org.archive.net.UURI;
import org.archive.net.UURIFactory;
import org.archive.url.URIException;
import org.json.JSONArray;
import org.json.JSONObject;

public final class HeritrixOracle {
    static final String NAME = "heritrix";
    static final String CONTACT_URL = "http://example.test/contact";
    static final String TEMPLATE_HEAD = "Mozilla/5.0 (compatible; ";
    static final String TEMPLATE_TAIL = " +@OPERATOR_CONTACT_URL@)";

    static final String FEEDING =
        "as Heritrix 3.13.0: new Robotstxt(new InputStreamReader(body)) in the JVM default "
        + "charset, UTF-8 (CrawlServer.updateRobots; bad bytes U+FFFD, BOM kept, the library "
        + "reads at most 512000 chars); can_fetch as PreconditionEnforcer + ObeyRobotsPolicy: "
        + "UURIFactory.getInstance(url) (refused = error), non-http(s) scheme or "
        + "getPath()=/robots.txt allowed unchecked, else getDirectivesFor(UA).allows("
        + "uuri.getPathQuery()); UA = CrawlMetadata.getUserAgent() of template "
        + "'Mozilla/5.0 (compatible; AGENT +@OPERATOR_CONTACT_URL@)', contact "
        + CONTACT_URL + " (an agent with a space or '(' is the UA verbatim); crawl_delay = "
        + "getDirectivesFor(UA).getCrawlDelay() (-1 = none); sitemaps = "
        + "ExtractorRobotsTxt.parseRobotsTxt(body)";

    static final String NO_RATE = "Heritrix's Robotstxt ignores Request-rate lines "
        + "(it knows User-agent, Disallow, Allow, Crawl-delay only)";

    public static void main(String[] args) throws IOException {
        OutputStream out = System.out;
        String hello;
        try {
            hello = hello();
        } catch (Throwable e) {
            String reason = e.getClass().getName() + ": " + e.getMessage();
            send(out, "{\"v\":2,\"unavailable\":{\"oracle\":" + str(NAME) + ",\"reason\":"
                + str(reason) + ",\"fix\":" + str(fixFor(e)) + "}}");
            return;
        }
        send(out, hello);
        ExtractorRobotsTxt extractor = new ExtractorRobotsTxt();
        Map<String, String> userAgents = new HashMap<>();
        InputStream in = new BufferedInputStream(System.in, 1 << 16);
        while (true) {
            byte[] line = readLine(in);
            if (line == null) {
                return; // the parent closed stdin
            }
            JSONObject request = new JSONObject(new String(line, StandardCharsets.UTF_8));
            JSONArray queries = request.getJSONArray("queries");
            String op = request.getString("op");
            if (op.equals("run")) {
                int length = request.getInt("body_len");
                byte[] body = in.readNBytes(length);
                if (body.length != length) {
                    System.err.println(NAME + ": stdin ended inside a body");
                    System.exit(1);
                }
                // `explain` false (the census): the parent will not read the accounts.
                boolean explain = request.optBoolean("explain", true);
                send(out, run(body, queries, extractor, userAgents, explain));
            } else if (op.equals("fetch")) {
                StringBuilder s = new StringBuilder("{\"answers\":[");
                for (int i = 0; i < queries.length(); i++) {
                    s.append(i == 0 ? "" : ",").append(unsupported("no fetch in this harness"));
                }
                send(out, s.append("]}").toString());
            } else {
                System.err.println(NAME + ": unknown op " + op);
                System.exit(1);
            }
        }
    }

    static String fixFor(Throwable e) {
        if (e instanceof WrongCharset) {
            return "run java with -Dfile.encoding=UTF-8 (see oracles/harness/heritrix)";
        }
        return "cargo xtask setup";
    }

    /** The default charset is what Heritrix decodes robots.txt with; pinned to UTF-8. */
    static final class WrongCharset extends RuntimeException {
        WrongCharset(String m) {
            super(m);
        }
    }

    // ------------------------------------------------------------------ run

    static String run(byte[] body, JSONArray queries, ExtractorRobotsTxt extractor,
                      Map<String, String> userAgents, boolean explain) {
        int n = queries.length();
        List<String> answers = new ArrayList<>(n);
        Robotstxt robots;
        try {
            // CrawlServer.updateRobots: the platform-default-charset reader.
            robots = new Robotstxt(new InputStreamReader(new ByteArrayInputStream(body)));
        } catch (Throwable e) {
            String err = error(e, null);
            for (int i = 0; i < n; i++) {
                answers.add(err);
            }
            return answersLine(answers);
        }
        String sitemaps = null; // parsed once, on the first sitemaps ask
        for (int i = 0; i < n; i++) {
            JSONObject q = queries.getJSONObject(i);
            String ask = q.optString("ask", "");
            String agent = q.optString("agent", "");
            String url = q.optString("url", "");
            String a;
            try {
                switch (ask) {
                    case "can_fetch":
                        a = canFetch(robots, userAgent(agent, userAgents), url, explain);
                        break;
                    case "crawl_delay":
                        a = crawlDelay(robots, userAgent(agent, userAgents));
                        break;
                    case "sitemaps":
                        if (sitemaps == null) {
                            sitemaps = sitemaps(extractor, body);
                        }
                        a = sitemaps;
                        break;
                    case "request_rate":
                        a = unsupported(NO_RATE);
                        break;
                    default:
                        a = unsupported("unknown ask " + ask);
                }
            } catch (Throwable e) {
                a = error(e, null);
            }
            answers.add(a);
        }
        return answersLine(answers);
    }

    /** The UA Heritrix sends, from CrawlMetadata itself (see header). */
    static String userAgent(String agent, Map<String, String> cache) {
        String ua = cache.get(agent);
        if (ua != null) {
            return ua;
        }
        if (agent.indexOf(' ') >= 0 || agent.indexOf('(') >= 0) {
            ua = agent;
        } else {
            CrawlMetadata metadata = new CrawlMetadata();
            metadata.setUserAgentTemplate(TEMPLATE_HEAD + agent + TEMPLATE_TAIL);
            metadata.setOperatorContactUrl(CONTACT_URL);
            ua = metadata.getUserAgent();
        }
        if (cache.size() > 10000) {
            cache.clear();
        }
        cache.put(agent, ua);
        return ua;
    }

    static String canFetch(Robotstxt robots, String ua, String url, boolean explain) {
        UURI uuri;
        try {
            uuri = UURIFactory.getInstance(url);
        } catch (Throwable e) {
            return error(e, "UURIFactory.getInstance refused the URL: no CrawlURI, no robots check");
        }
        // PreconditionEnforcer.innerProcessResult: robots only for http(s).
        String scheme = uuri.getScheme().toLowerCase();
        if (!(scheme.equals("http") || scheme.equals("https"))) {
            return verdict(true, "scheme " + scheme + ": PreconditionEnforcer applies no robots.txt");
        }
        // PreconditionEnforcer.considerRobotsPreconditions: /robots.txt passes.
        try {
            String path = uuri.getPath();
            if (path != null && path.equals("/robots.txt")) {
                return verdict(true, "path /robots.txt: exempted by PreconditionEnforcer");
            }
        } catch (URIException e) {
            // logged and ignored by Heritrix; the robots check follows
        }
        // ObeyRobotsPolicy.allows with RobotsPolicy.getPathQuery.
        String pathQuery;
        try {
            pathQuery = uuri.getPathQuery();
        } catch (URIException e) {
            pathQuery = "";
        }
        RobotsDirectives directives = robots.getDirectivesFor(ua);
        boolean allowed = directives.allows(pathQuery);
        if (!explain) {
            // groupName walks every named agent again: only its account needs it.
            return verdict(allowed, null);
        }
        return verdict(allowed, "UA " + ua + " -> group " + groupName(robots, ua)
            + "; getPathQuery " + pathQuery);
    }

    /** For `explain` only: which User-agent line getDirectivesFor picked. */
    static String groupName(Robotstxt robots, String ua) {
        for (String listed : robots.getNamedUserAgents()) {
            if (ua.indexOf(listed) > -1) {
                return "'" + listed + "' (first listed name found in the UA)";
            }
        }
        return "* (no listed name found in the UA; none if there is no * group)";
    }

    static String crawlDelay(Robotstxt robots, String ua) {
        float delay = robots.getDirectivesFor(ua).getCrawlDelay();
        if (delay < 0) {
            return "{\"outcome\":\"value\",\"value\":{\"type\":\"none\"}}";
        }
        if (Float.isInfinite(delay) || Float.isNaN(delay)) {
            return "{\"outcome\":\"error\",\"kind\":\"repdiff.Unrepresentable\",\"message\":"
                + str("crawl delay " + delay + " is not a finite JSON number") + "}";
        }
        return "{\"outcome\":\"value\",\"value\":{\"type\":\"float\",\"value\":"
            + Float.toString(delay) + "}}";
    }

    static String sitemaps(ExtractorRobotsTxt extractor, byte[] body) {
        List<String> links = extractor.parseRobotsTxt(new ByteArrayInputStream(body));
        StringBuilder s = new StringBuilder("{\"outcome\":\"value\",\"value\":{\"type\":\"list\",\"value\":[");
        for (int i = 0; i < links.size(); i++) {
            s.append(i == 0 ? "" : ",").append(str(links.get(i)));
        }
        return s.append("]}}").toString();
    }

    // -------------------------------------------------------------- answers

    static String verdict(boolean allowed, String explain) {
        String outcome = "{\"outcome\":\"" + (allowed ? "allowed" : "disallowed") + "\"";
        return explain == null ? outcome + "}" : outcome + ",\"explain\":" + str(explain) + "}";
    }

    static String unsupported(String reason) {
        return "{\"outcome\":\"unsupported\",\"reason\":" + str(reason) + "}";
    }

    static String error(Throwable e, String explain) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return "{\"outcome\":\"error\",\"kind\":" + str(e.getClass().getName()) + ",\"message\":"
            + str(message) + (explain == null ? "" : ",\"explain\":" + str(explain)) + "}";
    }

    static String answersLine(List<String> answers) {
        return "{\"answers\":[" + String.join(",", answers) + "]}";
    }

    // ------------------------------------------------------------ greeting

    static String hello() throws Exception {
        Charset cs = Charset.defaultCharset();
        if (!cs.equals(StandardCharsets.UTF_8)) {
            throw new WrongCharset("the JVM default charset is " + cs.name()
                + ", not UTF-8: Heritrix decodes robots.txt with the default charset");
        }
        File modules = jarOf(Robotstxt.class);
        String version = pomVersion(modules, "org.archive.heritrix", "heritrix-modules");
        String commons = pomVersion(jarOf(UURIFactory.class), "org.archive.heritrix", "heritrix-commons");
        String wac = pomVersion(jarOf(org.archive.url.UsableURIFactory.class),
            "org.netpreserve.commons", "webarchive-commons");
        String json = pomVersion(jarOf(JSONObject.class), "org.json", "json");
        String build = "javac --release 17; heritrix-commons " + commons + "; webarchive-commons "
            + wac + "; org.json " + json + " (protocol JSON); all jars from Maven Central, "
            + "pinned in jars.sha256";
        return "{\"v\":2,\"hello\":{"
            + "\"name\":" + str(NAME)
            + ",\"library\":\"heritrix-modules\""
            + ",\"version\":" + str(version)
            + ",\"language\":\"java\""
            + ",\"runtime\":{\"name\":" + str(System.getProperty("java.runtime.name", "java"))
            + ",\"version\":" + str(System.getProperty("java.version", "")) + "}"
            + ",\"provenance\":{\"registry\":\"maven-central\""
            + ",\"package\":\"org.archive.heritrix:heritrix-modules\""
            + ",\"version\":" + str(version)
            + ",\"artifact\":" + str(modules.getName())
            + ",\"sha256\":" + str(sha256(modules))
            + ",\"build\":" + str(build) + "}"
            + ",\"capabilities\":{\"can_fetch\":true,\"crawl_delay\":true,\"request_rate\":false,"
            + "\"sitemaps\":true,\"http_fetch\":false}"
            + ",\"feeding\":" + str(FEEDING)
            + "}}";
    }

    static File jarOf(Class<?> c) throws Exception {
        return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    static String pomVersion(File jar, String group, String artifact) throws IOException {
        try (JarFile jf = new JarFile(jar)) {
            ZipEntry e = jf.getEntry("META-INF/maven/" + group + "/" + artifact + "/pom.properties");
            if (e == null) {
                throw new IOException(jar.getName() + " has no pom.properties for " + artifact);
            }
            Properties p = new Properties();
            try (InputStream in = jf.getInputStream(e)) {
                p.load(in);
            }
            return p.getProperty("version");
        }
    }

    static String sha256(File f) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] digest = md.digest(Files.readAllBytes(f.toPath()));
        StringBuilder s = new StringBuilder();
        for (byte b : digest) {
            s.append(String.format("%02x", b & 0xff));
        }
        return s.toString();
    }

    // ----------------------------------------------------------------- I/O

    /** One line of bytes without its '\n', or null at end of input. */
    static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(256);
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            b.write(c);
        }
        if (c == -1 && b.size() == 0) {
            return null;
        }
        return b.toByteArray();
    }

    static void send(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** A JSON string literal in ASCII; a lone surrogate becomes \ufffd. */
    static String str(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(String.format("\\u%04x\\u%04x", (int) c, (int) s.charAt(i + 1)));
                i++;
            } else if (Character.isSurrogate(c)) {
                b.append("\\ufffd");
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.append('"').toString();
    }
}
