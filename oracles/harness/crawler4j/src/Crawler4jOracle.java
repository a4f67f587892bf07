/*
 * repdiff oracle harness (protocol v2, docs/protocol.md) for crawler4j's
 * robots.txt code: Maven Central edu.uci.ics:crawler4j:4.4.0 (the newest
 * release; git tag crawler4j-4.4.0 of yasserg/crawler4j), classes
 * edu.uci.ics.crawler4j.robotstxt.RobotstxtParser and HostDirectives.
 *
 * What runs: the jars setup copies from Maven Central (pom.xml, every one
 * pinned in jars.sha256): crawler4j 4.4.0, slf4j-api 1.7.22 (the one library
 * the robots.txt classes import; no binding, so nothing is logged) and
 * gson 2.15.0 (the protocol's JSON). crawler4j's other dependencies (Tika,
 * Berkeley DB JE, httpclient, guava, logback) are excluded: no class of the
 * robots.txt path or of URLCanonicalizer uses them.
 *
 * Fed as crawler4j feeds it (sources of tag crawler4j-4.4.0, identical to the
 * jar's classes):
 *
 * - URL: every URL crawler4j crawls, a seed (CrawlController.addSeed) or an
 *   outgoing link (WebCrawler via the parsers), is first made canonical by
 *   URLCanonicalizer.getCanonicalURL; a URL it returns null for (not a
 *   java.net.URL, an empty host, a URISyntaxException) is dropped ("Invalid
 *   seed URL"), so it never reaches robots.txt: `error` of kind
 *   InvalidSeedURL. The canonical URL is what RobotstxtServer.allows(WebURL)
 *   gets.
 * - RobotstxtServer.allows (robotstxt/RobotstxtServer.java): new
 *   URL(webURL.getURL()) (a MalformedURLException answers true), path =
 *   url.getPath() (no query: crawler4j never matches the query), then
 *   HostDirectives.allows(path), which is checkAccess(path) != DISALLOWED.
 * - Body: RobotstxtServer.fetchDirectives, on a 200 whose Content-Type is
 *   text/plain without a charset (httpcore's ContentType gives no charset
 *   then), does `new String(page.getContentData())`: the JVM's DEFAULT
 *   charset. The run command sets -Dfile.encoding=UTF-8 (the default of
 *   Java 18 and later, and of a JVM on a UTF-8 locale); a JVM whose default
 *   is anything else answers `unavailable`. So malformed bytes become
 *   U+FFFD and a BOM stays as U+FEFF at the start of the first line. Then
 *   RobotstxtParser.parse(content, config). An exception from parse (a
 *   PatternSyntaxException from PathRule's \Q..\E quoting of a value holding
 *   "\E") is caught by fetchDirectives' `catch (Exception e)`, which leaves
 *   `directives` null and stores new HostDirectives(config): no rules, every
 *   path allowed. The harness does the same and says so in `explain`.
 * - Agent: the crawler's RobotstxtConfig.setUserAgentName(agent), verbatim
 *   (crawler4j users set it to their bot's name; the default is
 *   "crawler4j"); HostDirectives lower-cases it, UserAgentDirectives.match
 *   tests each group name with userAgent.contains(name). The config is a
 *   fresh RobotstxtConfig otherwise (ignoreUADiscrimination false, enabled).
 *   The body is parsed once per agent in a request, as a HostDirectives is
 *   built for one configured agent.
 * - Determinism: UserAgentDirectives keeps its rules in a HashSet<PathRule>
 *   (PathRule has no hashCode, so the JVM's identity hash places them) and
 *   checkAccess copies them into a TreeSet ordered by PathComparator, which
 *   calls two rules with the same pattern text equal (an Allow and a
 *   Disallow of one path): the TreeSet keeps whichever the HashSet yields
 *   first, and drops the other. With the JVM's default identity hashes that
 *   order changes from one parse to the next (30 parses of one file in one
 *   JVM: 16 allowed, 14 disallowed). The run command sets
 *   -XX:+UnlockExperimentalVMOptions -XX:hashCode=2, every identity hash 1,
 *   so the HashSet iterates in file order (up to 8 rules of one pattern
 *   bucket) and the first of the two lines wins, in every run and worker.
 *   The harness refuses (`unavailable`) a JVM run without it. The price:
 *   every PathRule of a group lands in one hash bucket, so parsing a group
 *   is quadratic in its rules (one group of 20,000 Disallow lines: 7.8 s
 *   instead of 1.2 s; a few thousand rules stay well under a second).
 * - crawl_delay, sitemaps: unsupported. RobotstxtParser stores Crawl-delay
 *   and Sitemap in UserAgentDirectives, but HostDirectives keeps its groups
 *   private and has no getter, and crawler4j never reads them.
 *
 * - cpu_ms (docs/protocol.md section 2, sent by the fuzz loop): each question of such a
 *   request runs on a watched thread, and one whose call uses more CPU than that is
 *   stopped and answered `timeout` (Server.Guard): PathRule's `.*` regexes backtrack
 *   without end on some rules, and the worker then lives on instead of being killed.
 *
 * No suite capture: the Maven Central artifact ships no tests (crawler4j's
 * RobotstxtParserTest is a Groovy/Spock file of the git repository only).
 *
 * stdin is read as bytes: a JSON line, then exactly body_len raw bytes.
 * stdout carries only protocol lines, ASCII JSON, flushed after each line;
 * anything else printed goes to stderr.
 */

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import edu.uci.ics.crawler4j.robotstxt.HostDirectives;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtConfig;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtParser;
import edu.uci.ics.crawler4j.url.URLCanonicalizer;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

public final class Crawler4jOracle {

    static final String NAME = "crawler4j";
    static final String EXPECTED_VERSION = "4.4.0";
    static final String FIX = "cargo xtask setup";

    static void appendEscape(StringBuilder sb, char c) {
        sb.append(String.format("\\u%04x", (int) c));
    }

    static void jsonString(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c >= 0x7f) appendEscape(sb, Character.isSurrogate(c) ? '\ufffd' : c);
            else sb.append(c);
        }
    }

    /** Written by hand: used when the library or Gson could not be loaded. */
    static void unavailable(PrintStream out, String reason, String fix) {
        StringBuilder sb = new StringBuilder("{\"v\": 2, \"unavailable\": {\"oracle\": \"");
        jsonString(sb, NAME);
        sb.append("\", \"reason\": \"");
        jsonString(sb, reason);
        sb.append("\", \"fix\": \"");
        jsonString(sb, fix);
        sb.append("\"}}");
        out.println(sb);
        out.flush();
    }

    public static void main(String[] args) throws Exception {
        // Nothing but protocol lines on stdout: whatever else prints goes to stderr.
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.US_ASCII);
        System.setOut(System.err);
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())) {
            unavailable(stdout, "the JVM's default charset is " + Charset.defaultCharset()
                    + ": crawler4j decodes robots.txt in it, and this oracle is defined for UTF-8",
                    "run java with -Dfile.encoding=UTF-8 (the command in oracles/harness/crawler4j/oracle.yaml)");
            return;
        }
        if (System.identityHashCode(new Object()) != 1 || System.identityHashCode(new Object()) != 1) {
            unavailable(stdout, "identity hashes are not constant: crawler4j's answer to an Allow and a "
                    + "Disallow of the same pattern would change from run to run",
                    "run java with -XX:+UnlockExperimentalVMOptions -XX:hashCode=2 (the command in "
                            + "oracles/harness/crawler4j/oracle.yaml)");
            return;
        }
        Server server;
        try {
            Class.forName("com.google.gson.Gson");
            Class.forName("edu.uci.ics.crawler4j.robotstxt.RobotstxtParser");
            server = Server.create(stdout);
        } catch (Throwable t) {
            unavailable(stdout, "cannot load crawler4j or gson (" + t.getClass().getName() + ": "
                    + t.getMessage() + ")", FIX);
            return;
        }
        server.serve(new BufferedInputStream(System.in, 1 << 16));
    }

    /** Everything that needs Gson and crawler4j: loaded only after main() checked they load. */
    static final class Server {

        static final String PACKAGE = "edu.uci.ics:crawler4j";
        static final String POM_PROPERTIES = "META-INF/maven/edu.uci.ics/crawler4j/pom.properties";
        static final String GSON_POM_PROPERTIES = "META-INF/maven/com.google.code.gson/gson/pom.properties";
        static final String FEEDING =
                "as crawler4j 4.4.0 crawls: URLCanonicalizer.getCanonicalURL(url) (null: the URL is dropped, "
                        + "error InvalidSeedURL); RobotstxtServer.allows: new URL(canonical) (malformed: true), "
                        + "HostDirectives.allows(url.getPath()); the body as RobotstxtServer reads a 200 text/plain: "
                        + "new String(bytes) in the JVM default charset (UTF-8), RobotstxtParser.parse(text, config "
                        + "with setUserAgentName(agent)); an exception from parse leaves an empty HostDirectives "
                        + "(allow all), as fetchDirectives does; -XX:hashCode=2 so an Allow/Disallow tie on one "
                        + "pattern goes to the first line in every run";
        static final String NO_DELAY =
                "crawler4j parses Crawl-delay into UserAgentDirectives but HostDirectives has no getter for it "
                        + "and the crawler never reads it";
        static final String NO_SITEMAPS =
                "crawler4j parses Sitemap into UserAgentDirectives but HostDirectives has no getter for it "
                        + "and the crawler never reads it";
        static final String NO_RATE = "crawler4j ignores Request-rate (not one of its VALID_RULES)";

        final Gson gson = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
        final OutputStream out;
        final Guard guard = new Guard();

        static Server create(OutputStream out) throws Throwable {
            Server server = new Server(out);
            server.send(server.hello());
            return server;
        }

        Server(OutputStream out) {
            this.out = out;
        }

        // ---------------------------------------------------------------- output

        /** JSON text as pure ASCII: every non-ASCII char becomes \\uXXXX, a lone surrogate U+FFFD. */
        static String ascii(String json) {
            StringBuilder sb = null;
            int n = json.length();
            for (int i = 0; i < n; i++) {
                char c = json.charAt(i);
                if (c < 0x7f) {
                    if (sb != null) sb.append(c);
                    continue;
                }
                if (sb == null) {
                    sb = new StringBuilder(n + 16);
                    sb.append(json, 0, i);
                }
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                    appendEscape(sb, c);
                    appendEscape(sb, json.charAt(++i));
                } else if (Character.isSurrogate(c)) {
                    appendEscape(sb, '\ufffd');
                } else {
                    appendEscape(sb, c);
                }
            }
            return sb == null ? json : sb.toString();
        }

        void send(JsonElement message) throws IOException {
            out.write(ascii(gson.toJson(message)).getBytes(StandardCharsets.US_ASCII));
            out.write('\n');
            out.flush();
        }

        static JsonObject outcome(String outcome) {
            JsonObject o = new JsonObject();
            o.addProperty("outcome", outcome);
            return o;
        }

        static JsonObject error(String kind, String message) {
            JsonObject o = outcome("error");
            o.addProperty("kind", kind);
            o.addProperty("message", message == null ? "" : message);
            return o;
        }

        static JsonObject unsupported(String reason) {
            JsonObject o = outcome("unsupported");
            o.addProperty("reason", reason);
            return o;
        }

        // ---------------------------------------------------------------- feeding

        /** One request: the body decoded once, parsed once per agent. */
        static final class Run {
            final String content;
            /**
             * The request's `explain` (docs/protocol.md): false when the parent
             * will not read the accounts (the census), so none is built.
             */
            final boolean explain;
            final Map<String, HostDirectives> parsed = new HashMap<>();
            final Map<String, Throwable> failed = new HashMap<>();

            Run(byte[] body, boolean explain) {
                // RobotstxtServer.fetchDirectives: a text/plain 200 without a charset.
                this.content = new String(body);
                this.explain = explain;
            }

            /** The directives RobotstxtServer would cache for this agent. */
            HostDirectives directives(String agent) {
                HostDirectives d = parsed.get(agent);
                if (d == null) {
                    RobotstxtConfig config = new RobotstxtConfig();
                    config.setUserAgentName(agent);
                    try {
                        d = RobotstxtParser.parse(content, config);
                    } catch (Exception e) {
                        // fetchDirectives' catch (Exception e): directives stay null,
                        // then `new HostDirectives(config)` is stored.
                        failed.put(agent, e);
                        d = new HostDirectives(config);
                    }
                    parsed.put(agent, d);
                }
                return d;
            }

            JsonObject canFetch(String agent, String url) {
                String canonical;
                try {
                    canonical = URLCanonicalizer.getCanonicalURL(url);
                } catch (ThreadDeath d) {
                    throw d;
                } catch (Throwable t) {
                    return error(t.getClass().getName(), t.getMessage());
                }
                if (canonical == null) {
                    JsonObject e = error("InvalidSeedURL",
                            "URLCanonicalizer.getCanonicalURL returned null: crawler4j drops the URL");
                    e.addProperty("explain", "refused by the crawler before robots.txt is asked");
                    return e;
                }
                URL u;
                try {
                    u = new URL(canonical);
                } catch (MalformedURLException e) {
                    JsonObject o = outcome("allowed");
                    o.addProperty("explain", "RobotstxtServer.allows: bad URL " + canonical + ", returns true");
                    return o;
                }
                String path = u.getPath();
                HostDirectives d = directives(agent);
                // HostDirectives.allows(path) is `checkAccess(path) != DISALLOWED`
                // (its only other effect: the last-access time), so one
                // checkAccess gives both the verdict and the account: the rules
                // are matched once per question, as crawler4j matches them.
                int access = d.checkAccess(path);
                JsonObject o = outcome(access != HostDirectives.DISALLOWED ? "allowed" : "disallowed");
                if (!explain) {
                    return o;
                }
                Throwable t = failed.get(agent);
                if (t != null) {
                    o.addProperty("explain", "RobotstxtParser.parse threw " + t.getClass().getName() + " ("
                            + t.getMessage() + "): RobotstxtServer keeps an empty HostDirectives");
                } else {
                    o.addProperty("explain", "checkAccess(" + path + ") = "
                            + (access == HostDirectives.ALLOWED ? "ALLOWED"
                                    : access == HostDirectives.DISALLOWED ? "DISALLOWED" : "UNDEFINED")
                            + " for " + canonical);
                }
                return o;
            }

            JsonObject answer(JsonObject query) {
                String ask = string(query, "ask");
                try {
                    switch (ask) {
                        case "can_fetch":
                            return canFetch(string(query, "agent"), string(query, "url"));
                        case "crawl_delay":
                            return unsupported(NO_DELAY);
                        case "sitemaps":
                            return unsupported(NO_SITEMAPS);
                        case "request_rate":
                            return unsupported(NO_RATE);
                        default:
                            return unsupported("unknown ask " + ask);
                    }
                } catch (ThreadDeath d) {
                    // Guard.stop: the question used up its CPU budget.
                    throw d;
                } catch (Throwable t) {
                    return error(t.getClass().getName(), t.getMessage());
                }
            }
        }

        /**
         * Answers a request whose parent set `cpu_ms` (docs/protocol.md section 2, the
         * fuzz loop does): the questions run on a thread of their own whose CPU time is
         * watched, and one that uses more than `cpu_ms` is stopped and answered
         * `timeout` while the worker lives on. Why: PathRule turns each `*` into `.*`
         * and matches with java.util.regex, which tries every way of splitting a
         * non-matching path among them, so a rule with a dozen stars does not end; the
         * parent's wall-clock timeout then killed the JVM, and the fuzz loop paid the
         * whole timeout plus a JVM start (about 0.4 s of CPU) for each such input, the
         * largest share of its lost time (reports/fuzz/2026-12-07T221634.md). CPU, not
         * wall time, so a busy machine delays a question without making it a timeout.
         * Thread.stop works up to Java 19 (the harness runs on Debian 12's Java 17);
         * on a later JVM the guard is off and the parent's timeout applies as before.
         */
        static final class Guard {
            static final boolean CAN_STOP = Runtime.version().feature() < 20;
            final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            ExecutorService pool;
            Thread thread;
            /** The question the guarded thread is on (-1: none) and its CPU time when it began. */
            volatile int at = -1;
            volatile long since;

            ExecutorService pool() {
                if (pool == null) {
                    pool = Executors.newSingleThreadExecutor(r -> {
                        Thread t = new Thread(r, "crawler4j-guarded");
                        t.setDaemon(true);
                        thread = t;
                        return t;
                    });
                    // Load crawler4j's, the URL and the regex classes on this thread before
                    // any question is timed: the first question is not charged for them.
                    byte[] warm = "User-agent: *\nDisallow: /a*b$\n".getBytes(StandardCharsets.UTF_8);
                    try {
                        pool.submit(() -> new Run(warm, false).canFetch("warm-up", "http://example.com/a/x")).get();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (ExecutionException e) {
                        System.err.println(NAME + ": warm-up failed: " + e.getCause());
                    }
                }
                return pool;
            }

            void answer(Run run, JsonArray queries, long cpuMs, JsonArray out) {
                int n = queries.size();
                JsonObject[] answers = new JsonObject[n];
                long budget = cpuMs * 1_000_000L;
                int next = 0;
                while (next < n) {
                    int from = next;
                    at = -1;
                    Future<?> f = pool().submit(() -> {
                        for (int i = from; i < n; i++) {
                            since = mx.getCurrentThreadCpuTime();
                            at = i;
                            answers[i] = run.answer(queries.get(i).getAsJsonObject());
                        }
                        at = -1;
                    });
                    int stopped = watch(f, budget);
                    if (stopped >= 0 && answers[stopped] == null) {
                        JsonObject o = outcome("timeout");
                        o.addProperty("explain", "crawler4j used more than " + cpuMs
                                + " ms of CPU on this question (the request's cpu_ms); its thread was stopped");
                        answers[stopped] = o;
                    }
                    // A stop can land just after the question it was meant for ended:
                    // then the question it did land on is asked again.
                    next = from;
                    while (next < n && answers[next] != null) next++;
                }
                for (JsonObject a : answers) out.add(a);
            }

            /** Wait for the questions; the one stopped for its CPU, or -1 when all were answered. */
            int watch(Future<?> f, long budget) {
                long wait = budget;
                while (true) {
                    try {
                        f.get(Math.max(1_000_000L, wait), TimeUnit.NANOSECONDS);
                        return -1;
                    } catch (TimeoutException e) {
                        int q = at;
                        long used = mx.getThreadCpuTime(thread.getId()) - since;
                        if (q >= 0 && used > budget) {
                            stop();
                            return q;
                        }
                        wait = budget - used;
                    } catch (ExecutionException e) {
                        // Only a stop ends the task abnormally (answer() turns the rest into
                        // errors); be safe: treat it as one on the current question.
                        int q = at;
                        stop();
                        return q;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return -1;
                    }
                }
            }

            @SuppressWarnings("removal")
            void stop() {
                Thread t = thread;
                pool.shutdownNow();
                pool = null;
                t.stop();
                try {
                    t.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (t.isAlive()) {
                    // It would go on writing answers: leave, and the parent restarts us.
                    System.err.println(NAME + ": a stopped question did not end within 2 s; exiting");
                    System.exit(1);
                }
            }
        }

        static String string(JsonObject o, String key) {
            JsonElement e = o.get(key);
            return e == null || e.isJsonNull() ? "" : e.getAsString();
        }

        // ---------------------------------------------------------------- protocol

        /** One line of stdin without its '\n', or null at end of input. */
        static byte[] readLine(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') return line.toByteArray();
                line.write(b);
            }
            return line.size() == 0 ? null : line.toByteArray();
        }

        void serve(InputStream in) throws IOException {
            while (true) {
                byte[] line = readLine(in);
                if (line == null) return;
                String text = new String(line, StandardCharsets.UTF_8);
                if (text.trim().isEmpty()) continue;
                JsonObject request = JsonParser.parseString(text).getAsJsonObject();
                JsonArray queries = request.has("queries") ? request.getAsJsonArray("queries") : new JsonArray();
                String op = string(request, "op");
                JsonArray answers = new JsonArray();
                if (op.equals("run")) {
                    int len = request.get("body_len").getAsInt();
                    byte[] body = in.readNBytes(len);
                    if (body.length != len) {
                        System.err.println(NAME + ": stdin ended inside a body");
                        System.exit(1);
                    }
                    Run run = new Run(body, !request.has("explain") || request.get("explain").getAsBoolean());
                    long cpuMs = request.has("cpu_ms") ? request.get("cpu_ms").getAsLong() : 0;
                    if (cpuMs > 0 && Guard.CAN_STOP) {
                        guard.answer(run, queries, cpuMs, answers);
                    } else {
                        for (JsonElement q : queries) {
                            answers.add(run.answer(q.getAsJsonObject()));
                        }
                    }
                } else if (op.equals("fetch")) {
                    for (int i = 0; i < queries.size(); i++) {
                        answers.add(unsupported("no HTTP fetcher in this harness"));
                    }
                } else {
                    System.err.println(NAME + ": unknown op " + op);
                    System.exit(1);
                }
                JsonObject response = new JsonObject();
                response.add("answers", answers);
                send(response);
            }
        }

        // ---------------------------------------------------------------- greeting

        static Path jarOf(Class<?> c) throws Exception {
            return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        }

        static Properties jarProperties(Path jar, String entry) throws IOException {
            Properties p = new Properties();
            try (JarFile jf = new JarFile(jar.toFile())) {
                JarEntry e = jf.getJarEntry(entry);
                if (e != null) {
                    try (InputStream in = jf.getInputStream(e)) {
                        p.load(in);
                    }
                }
            }
            return p;
        }

        static String sha256(Path file) throws Exception {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] digest = md.digest(Files.readAllBytes(file));
            StringBuilder sb = new StringBuilder();
            for (byte b : digest) sb.append(String.format("%02x", b & 0xff));
            return sb.toString();
        }

        /** The release the classes were compiled for, from this class file's major version. */
        static String classRelease() {
            try (InputStream in = Crawler4jOracle.class.getResourceAsStream("Crawler4jOracle.class")) {
                byte[] head = in.readNBytes(8);
                return Integer.toString(((head[6] & 0xff) << 8 | (head[7] & 0xff)) - 44);
            } catch (Exception e) {
                return "?";
            }
        }

        JsonObject hello() throws Exception {
            Path jar = jarOf(RobotstxtParser.class);
            String version = jarProperties(jar, POM_PROPERTIES).getProperty("version", "unknown");
            if (!version.equals(EXPECTED_VERSION)) {
                System.err.println(NAME + ": loaded crawler4j " + version + ", expected " + EXPECTED_VERSION);
            }
            String gsonVersion = jarProperties(jarOf(Gson.class), GSON_POM_PROPERTIES).getProperty("version", "?");

            JsonObject runtime = new JsonObject();
            runtime.addProperty("name", System.getProperty("java.vm.name"));
            runtime.addProperty("version", System.getProperty("java.version"));

            JsonObject provenance = new JsonObject();
            provenance.addProperty("registry", "maven-central");
            provenance.addProperty("package", PACKAGE);
            provenance.addProperty("version", version);
            provenance.addProperty("artifact", jar.getFileName().toString());
            provenance.addProperty("sha256", sha256(jar));
            provenance.addProperty("build", "javac --release " + classRelease() + "; gson " + gsonVersion);

            JsonObject capabilities = new JsonObject();
            capabilities.addProperty("can_fetch", true);
            capabilities.addProperty("crawl_delay", false);
            capabilities.addProperty("request_rate", false);
            capabilities.addProperty("sitemaps", false);
            capabilities.addProperty("http_fetch", false);

            JsonObject hello = new JsonObject();
            hello.addProperty("name", NAME);
            hello.addProperty("library", "crawler4j");
            hello.addProperty("version", version);
            hello.addProperty("language", "java");
            hello.add("runtime", runtime);
            hello.add("provenance", provenance);
            hello.add("capabilities", capabilities);
            hello.addProperty("feeding", FEEDING);

            JsonObject greeting = new JsonObject();
            greeting.addProperty("v", 2);
            greeting.add("hello", hello);
            return greeting;
        }
    }
}
