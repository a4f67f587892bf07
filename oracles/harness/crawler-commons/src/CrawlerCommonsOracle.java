/*
 * repdiff oracle harness (protocol v2, docs/protocol.md) for crawler-commons'
 * SimpleRobotRulesParser (Maven Central com.github.crawler-commons:crawler-commons),
 * fed the way its main users feed it. One source serves two oracles, chosen by
 * system properties (see README.md beside this file):
 *
 *   -Drepdiff.oracle=crawler-commons      -Drepdiff.feeding=nutch          (crawler-commons 1.6)
 *   -Drepdiff.oracle=crawler-commons-1.4  -Drepdiff.feeding=stormcrawler   (crawler-commons 1.4)
 *
 * Feeding "nutch", as Apache Nutch 1.22 does (ivy.xml pins crawler-commons 1.6):
 *  - Agent: Fetcher.checkConfiguration refuses an http.agent.name that is empty
 *    after trim() (IllegalArgumentException "Fetcher: No agents listed in
 *    'http.agent.name' property."). RobotRulesParser.setConf then takes
 *    name.trim(); "*" gives the EMPTY name set (the library's way to ask for the
 *    wildcard group), anything else the set {name.toLowerCase()} (the JVM's
 *    default locale: run with -Duser.language=en -Duser.country=US).
 *    http.robots.agents is empty by default (nutch-default.xml), so nothing else.
 *  - Parser: one SimpleRobotRulesParser with setMaxCrawlDelay(Long.MAX_VALUE)
 *    (RobotRulesParser's static block).
 *  - URL: FetchItem.create does new java.net.URL(url); one that does not parse
 *    is never fetched: an `error` with the exception class (MalformedURLException).
 *  - Body: HttpRobotRulesParser parses a 200 response with
 *    parseContent(url, rawBytes, contentType, names): the raw bytes (the library
 *    decodes them itself), content type "text/plain" (the body as served here).
 *    `url` is the robots.txt URL, new URL(pageUrl, "/robots.txt") as Nutch builds
 *    it for the fetch (protocol.md: origin + /robots.txt). Nutch itself passes the
 *    page URL that missed its per-host cache; the library uses this argument only
 *    to resolve relative Sitemap URLs (and in log lines), so verdicts and delays
 *    do not depend on it.
 *  - Verdict: FetcherThread calls rules.isAllowed(fit.u), the java.net.URL
 *    overload (crawler-commons 1.5+; looked up once as a MethodHandle so this
 *    source also compiles against 1.4).
 *
 * Feeding "stormcrawler", as Apache StormCrawler 3.4.0 does (it pins 1.4):
 *  - Agent: RobotRulesParser.setConf lower-cases http.agent.name with
 *    Locale.ROOT (no trim) and refuses, with RuntimeException "Invalid agent
 *    name: ...", a name that does not match [a-zA-Z_-]+ ("", "*", "FooBot/1.0");
 *    that refusal is the answer (an `error`, kind java.lang.RuntimeException).
 *    The name set is {name}.
 *  - URL: FetcherBolt does new java.net.URL(url) first (malformed -> error).
 *  - Body: parseContent(url, bytes, "text/plain", names) as above, with the
 *    same parser settings (setMaxCrawlDelay(Long.MAX_VALUE)).
 *  - Verdict: rules.isAllowed(String url) (the String overload; the library
 *    parses the URL itself and checks "/" when it cannot).
 *
 * Asks: crawl_delay is getCrawlDelay(), milliseconds as a long, reported in
 * seconds like every other oracle: an int when the milliseconds are a whole
 * number of seconds, else the float ms / 1000.0; UNSET_CRAWL_DELAY (no
 * Crawl-delay for this agent) is `none`. sitemaps is getSitemaps() (they do not
 * depend on the agent in this library: the request's agent is not used, the
 * body is parsed with the empty name set; an empty query URL stands for
 * http://example.test/). request_rate: the library reads Request-rate lines but
 * keeps nothing, so `unsupported`. A Throwable from the library or the URL
 * parser is that query's `error` (kind = its class name).
 *
 * The body is parsed once per distinct (robots.txt URL, name set) per request.
 * stdout carries protocol lines only (ASCII JSON, flushed per line); slf4j has
 * no provider here and says so once on stderr.
 */

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

public final class CrawlerCommonsOracle {

    static final String FIX = "cargo xtask setup";

    static void appendEscape(StringBuilder sb, char c) {
        sb.append(String.format("\\u%04x", (int) c));
    }

    /** Written by hand: used when the library or Gson could not be loaded. */
    static void unavailable(PrintStream out, String oracle, String reason) {
        StringBuilder sb = new StringBuilder("{\"v\": 2, \"unavailable\": {\"oracle\": \"");
        jsonString(sb, oracle);
        sb.append("\", \"reason\": \"");
        jsonString(sb, reason);
        sb.append("\", \"fix\": \"").append(FIX).append("\"}}");
        out.println(sb);
        out.flush();
    }

    static void jsonString(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c >= 0x7f) appendEscape(sb, Character.isSurrogate(c) ? '\ufffd' : c);
            else sb.append(c);
        }
    }

    public static void main(String[] args) throws Exception {
        String oracle = System.getProperty("repdiff.oracle", "crawler-commons");
        String feeding = System.getProperty("repdiff.feeding", "nutch");
        boolean nutch = !feeding.startsWith("stormcrawler");
        String expected = System.getProperty("repdiff.expect-version", nutch ? "1.6" : "1.4");
        // Nothing but protocol lines on stdout: whatever else prints goes to stderr.
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
                StandardCharsets.US_ASCII);
        System.setOut(System.err);

        Server harness;
        try {
            Class.forName("com.google.gson.Gson");
            Class.forName("crawlercommons.robots.SimpleRobotRulesParser");
            harness = Server.create(oracle, nutch, expected, stdout);
        } catch (Throwable t) {
            unavailable(stdout, oracle, "cannot load crawler-commons or gson (" + t.getClass().getName() + ": "
                    + t.getMessage() + ")");
            return;
        }
        harness.serve(new BufferedInputStream(System.in, 1 << 16));
    }

    /** Everything that needs Gson and crawler-commons: loaded only after main() checked they load. */
    static final class Server {

        static final String PACKAGE = "com.github.crawler-commons:crawler-commons";
        static final String POM_PROPERTIES =
                "META-INF/maven/com.github.crawler-commons/crawler-commons/pom.properties";
        static final String GSON_POM_PROPERTIES = "META-INF/maven/com.google.code.gson/gson/pom.properties";
        /** Sitemaps come with an empty URL; they are answered for this robots.txt. */
        static final String DEFAULT_ROBOTS_URL = "http://example.test/robots.txt";
        static final String NO_RATE =
                "crawler-commons reads Request-rate lines but keeps nothing (BaseRobotRules has no request-rate API)";

        static final String FEEDING_NUTCH =
                "Nutch 1.22: agent.trim() (empty -> Fetcher's IllegalArgumentException; \"*\" -> empty name set), "
                        + "else {toLowerCase()}; SimpleRobotRulesParser with setMaxCrawlDelay(Long.MAX_VALUE); "
                        + "parseContent(new URL(url, \"/robots.txt\").toString(), raw body bytes, \"text/plain\", names); "
                        + "isAllowed(new java.net.URL(url)); crawl delay ms/1000 s; parsed once per robots URL and names";
        static final String FEEDING_STORMCRAWLER =
                "StormCrawler 3.4.0: agent.toLowerCase(Locale.ROOT), refused unless [a-zA-Z_-]+ (RuntimeException); "
                        + "SimpleRobotRulesParser with setMaxCrawlDelay(Long.MAX_VALUE); new java.net.URL(url) must parse; "
                        + "parseContent(new URL(url, \"/robots.txt\").toString(), raw body bytes, \"text/plain\", {name}); "
                        + "isAllowed(String url); crawl delay ms/1000 s; parsed once per robots URL and names";

        static final Pattern STORMCRAWLER_AGENT = Pattern.compile("[a-zA-Z_-]+");

        /** A query's answer that is a refusal before the library is asked. */
        static final class Refused extends Exception {
            private static final long serialVersionUID = 1L;

            final String kind;

            Refused(Throwable cause) {
                super(cause.getMessage(), cause);
                this.kind = cause.getClass().getName();
            }
        }

        final String oracle;
        final boolean nutch;
        final SimpleRobotRulesParser parser = new SimpleRobotRulesParser();
        /** BaseRobotRules.isAllowed(java.net.URL), crawler-commons 1.5 and later. */
        final MethodHandle isAllowedUrl;
        final Gson gson = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
        final OutputStream out;

        /** The harness for this feeding, after its greeting went out. */
        static Server create(String oracle, boolean nutch, String expected, OutputStream out) throws Throwable {
            MethodHandle isAllowedUrl = null;
            if (nutch) {
                isAllowedUrl = MethodHandles.publicLookup().findVirtual(BaseRobotRules.class, "isAllowed",
                        MethodType.methodType(boolean.class, URL.class));
            }
            Server server = new Server(oracle, nutch, isAllowedUrl, out);
            server.send(server.hello(expected));
            return server;
        }

        Server(String oracle, boolean nutch, MethodHandle isAllowedUrl, OutputStream out) {
            this.oracle = oracle;
            this.nutch = nutch;
            this.isAllowedUrl = isAllowedUrl;
            this.out = out;
            parser.setMaxCrawlDelay(Long.MAX_VALUE);
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

        static JsonObject error(Throwable t) {
            return error(t.getClass().getName(), t.getMessage());
        }

        static JsonObject unsupported(String reason) {
            JsonObject o = outcome("unsupported");
            o.addProperty("reason", reason);
            return o;
        }

        static JsonObject value(JsonObject v) {
            JsonObject o = outcome("value");
            o.add("value", v);
            return o;
        }

        static JsonObject delayValue(long ms) {
            JsonObject v = new JsonObject();
            if (ms == BaseRobotRules.UNSET_CRAWL_DELAY) {
                v.addProperty("type", "none");
            } else if (ms % 1000 == 0) {
                v.addProperty("type", "int");
                v.addProperty("value", ms / 1000);
            } else {
                v.addProperty("type", "float");
                v.addProperty("value", ms / 1000.0);
            }
            JsonObject o = value(v);
            if (ms != BaseRobotRules.UNSET_CRAWL_DELAY) {
                o.addProperty("explain", "getCrawlDelay() = " + ms + " ms");
            }
            return o;
        }

        // ---------------------------------------------------------------- feeding

        /** The robot name set the crawler configures for this agent. */
        Collection<String> names(String agent) throws Refused {
            if (nutch) {
                if (agent.trim().length() == 0) {
                    throw new Refused(new IllegalArgumentException(
                            "Fetcher: No agents listed in 'http.agent.name' property."));
                }
                String name = agent.trim();
                Set<String> names = new LinkedHashSet<>();
                if (!name.equals("*")) {
                    names.add(name.toLowerCase());
                }
                return names;
            }
            String name = agent.toLowerCase(Locale.ROOT);
            if (!STORMCRAWLER_AGENT.matcher(name).matches()) {
                throw new Refused(new RuntimeException("Invalid agent name: " + name
                        + ". It MUST contain only uppercase and lowercase letters (\"a-z\" and \"A-Z\"), underscores (\"_\"), and hyphens (\"-\")"));
            }
            Set<String> names = new LinkedHashSet<>();
            names.add(name);
            return names;
        }

        /** The page URL as the crawler holds it before asking robots.txt. */
        static URL pageUrl(String url) throws Refused {
            try {
                return new URL(url);
            } catch (Exception e) {
                throw new Refused(e);
            }
        }

        static String robotsUrl(URL page) throws Refused {
            try {
                return new URL(page, "/robots.txt").toString();
            } catch (Exception e) {
                throw new Refused(e);
            }
        }

        /** One request: the body parsed once per (robots URL, names). */
        final class Run {
            final byte[] body;
            final Map<String, Object> parsed = new HashMap<>();

            Run(byte[] body) {
                this.body = body;
            }

            /** The rules, or throws what parseContent threw. */
            BaseRobotRules rules(String robotsUrl, Collection<String> names) throws Throwable {
                String key = robotsUrl + "\u0000" + String.join("\u0000", names);
                Object got = parsed.get(key);
                if (got == null) {
                    try {
                        got = parser.parseContent(robotsUrl, body, "text/plain", names);
                    } catch (Throwable t) {
                        got = t;
                    }
                    parsed.put(key, got);
                }
                if (got instanceof Throwable) throw (Throwable) got;
                return (BaseRobotRules) got;
            }

            JsonObject answer(JsonObject query) {
                String ask = string(query, "ask");
                String agent = string(query, "agent");
                String url = string(query, "url");
                try {
                    switch (ask) {
                        case "can_fetch": {
                            Collection<String> names = names(agent);
                            URL page = pageUrl(url);
                            BaseRobotRules rules = rules(robotsUrl(page), names);
                            boolean allowed = nutch ? (boolean) isAllowedUrl.invokeExact(rules, page)
                                    : rules.isAllowed(url);
                            return outcome(allowed ? "allowed" : "disallowed");
                        }
                        case "crawl_delay": {
                            Collection<String> names = names(agent);
                            String robots = url.isEmpty() ? DEFAULT_ROBOTS_URL : robotsUrl(pageUrl(url));
                            return delayValue(rules(robots, names).getCrawlDelay());
                        }
                        case "sitemaps": {
                            String robots = url.isEmpty() ? DEFAULT_ROBOTS_URL : robotsUrl(pageUrl(url));
                            JsonArray list = new JsonArray();
                            for (String s : rules(robots, Collections.emptySet()).getSitemaps()) {
                                list.add(s);
                            }
                            JsonObject v = new JsonObject();
                            v.addProperty("type", "list");
                            v.add("value", list);
                            return value(v);
                        }
                        case "request_rate":
                            return unsupported(NO_RATE);
                        default:
                            return unsupported("unknown ask " + ask);
                    }
                } catch (Refused r) {
                    JsonObject e = error(r.kind, r.getMessage());
                    e.addProperty("explain", "refused by the crawler before crawler-commons is asked");
                    return e;
                } catch (Throwable t) {
                    return error(t);
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
                        System.err.println(oracle + ": stdin ended inside a body");
                        System.exit(1);
                    }
                    Run run = new Run(body);
                    for (JsonElement q : queries) {
                        answers.add(run.answer(q.getAsJsonObject()));
                    }
                } else if (op.equals("fetch")) {
                    for (int i = 0; i < queries.size(); i++) {
                        answers.add(unsupported("no HTTP fetcher in this harness"));
                    }
                } else {
                    System.err.println(oracle + ": unknown op " + op);
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
            try (InputStream in = CrawlerCommonsOracle.class.getResourceAsStream("CrawlerCommonsOracle.class")) {
                byte[] head = in.readNBytes(8);
                return Integer.toString(((head[6] & 0xff) << 8 | (head[7] & 0xff)) - 44);
            } catch (Exception e) {
                return "?";
            }
        }

        JsonObject hello(String expectedVersion) throws Exception {
            Path jar = jarOf(SimpleRobotRulesParser.class);
            String version = jarProperties(jar, POM_PROPERTIES).getProperty("version", "unknown");
            if (!version.equals(expectedVersion)) {
                System.err.println(oracle + ": loaded crawler-commons " + version + ", expected " + expectedVersion);
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
            capabilities.addProperty("crawl_delay", true);
            capabilities.addProperty("request_rate", false);
            capabilities.addProperty("sitemaps", true);
            capabilities.addProperty("http_fetch", false);

            JsonObject hello = new JsonObject();
            hello.addProperty("name", oracle);
            hello.addProperty("library", "crawler-commons");
            hello.addProperty("version", version);
            hello.addProperty("language", "java");
            hello.add("runtime", runtime);
            hello.add("provenance", provenance);
            hello.add("capabilities", capabilities);
            hello.addProperty("feeding", nutch ? FEEDING_NUTCH : FEEDING_STORMCRAWLER);

            JsonObject greeting = new JsonObject();
            greeting.addProperty("v", 2);
            greeting.add("hello", hello);
            return greeting;
        }



    }
}
