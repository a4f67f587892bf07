/*
 * Suite capture for `crawler-commons`: runs crawler-commons 1.6's own robots
 * tests (crawlercommons/robots/*Test in crawler-commons-1.6-tests.jar from
 * Maven Central: SimpleRobotRulesParserTest, GoogleRobotsTxtTest,
 * SimpleRobotRulesTest) with the JUnit Jupiter engine the library's pom names,
 * and records every verdict the tests obtain, in the raw shape of
 * repdiff/src/suites/model.rs.
 *
 * Usage: java -cp CLASSES:LIB/* CaptureCrawlerCommons TESTS_JAR WORK_DIR OUT.json
 *
 * Recording: the library jar is the pinned crawler-commons-1.6.jar, unchanged
 * on disk. Before any test class loads, Byte Buddy (self-attached agent)
 * weaves advice into the loaded classes that only observes; every method
 * body runs as shipped:
 *  - SimpleRobotRulesParser.parseContent (outermost call only): the body
 *    bytes, the names argument (String or Collection), the parser's exact
 *    matching flag and max crawl delay, keyed by the identity of the rules
 *    object it returns; failedFetch results are keyed too (status codes).
 *  - SimpleRobotRules.isAllowed(String) / isAllowed(URL) (outermost): the
 *    verdict, joined to the parse that made that rules object.
 *  - getCrawlDelay, getSitemaps, isDeferVisits, isMatchedWildcard,
 *    isAllowAll, isAllowNone, getNumWarnings, failedFetch called by a test:
 *    a "skipped" entry (the protocol's suite form has no such assertion).
 * A verdict is a call only when its rules came from parseContent by the
 * library's own parser class with exactly one agent name: the deprecated
 * String API splits its argument at commas and whitespace (a call whose
 * string gives more than one name is skipped as multi-agent); a Collection
 * with more than one name is skipped; the empty Collection (the library's
 * wildcard request) is recorded as agent "*". Rules built by hand
 * (addRule), by failedFetch, by deserialisation or by a parser subclass
 * that overrides matching are skipped with the reason.
 *
 * Each call also carries "feeding" (ignored by repdiff's reader): how the
 * test fed the library, where that can differ from the oracle's Nutch
 * feeding (String API = prefix matching on name words; exact matching off;
 * the default max crawl delay of 300 s instead of Nutch's Long.MAX_VALUE;
 * isAllowed(String) instead of Nutch's isAllowed(URL)).
 *
 * The robots.txt URL a test gives parseContent (http://domain.com) is not
 * written as robots_url: the library uses it only to resolve relative
 * Sitemap URLs (and in log lines); verdicts do not depend on it.
 *
 * Tests run one at a time on the main thread in JUnit's deterministic
 * order; none draws random inputs. But testSelectCrawlDelayGroup iterates a
 * Map.of(...), whose order the JVM salts anew at every start: so that two
 * captures are equal, a test's calls are written ordered by (body, agent
 * names), then in the order made (the n of an assertion id test#n counts
 * in that order); the skipped entries are sorted. A test is named
 * Class.method, and a parameterised invocation Class.method[n] (n as JUnit
 * numbers it).
 */

import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;

public final class CaptureCrawlerCommons {

    static final String PACKAGE = "crawlercommons/robots/";

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: CaptureCrawlerCommons TESTS_JAR WORK_DIR OUT.json");
            System.exit(2);
        }
        Path testJar = Paths.get(args[0]).toAbsolutePath();
        Path work = Paths.get(args[1]).toAbsolutePath();
        Path out = Paths.get(args[2]).toAbsolutePath();
        Files.createDirectories(work);
        System.setProperty("java.io.tmpdir", work.toString());
        System.setProperty("test.build.data", work.resolve("test-data").toString());

        Instrumentation inst = ByteBuddyAgent.install();
        weave(inst);

        List<String> classNames = new ArrayList<>();
        try (JarFile jar = new JarFile(testJar.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String n = e.nextElement().getName();
                if (n.startsWith(PACKAGE) && n.endsWith("Test.class") && n.indexOf('/', PACKAGE.length()) < 0 && !n.contains("$")) {
                    classNames.add(n.substring(0, n.length() - ".class".length()).replace('/', '.'));
                }
            }
        }
        Collections.sort(classNames);
        // The tests use package-private and protected members of the library
        // (same package): they must be defined by the library's loader, the
        // application class loader (a no-op when the jar is already on the path).
        inst.appendToSystemClassLoaderSearch(new JarFile(testJar.toFile()));
        ClassLoader loader = ClassLoader.getSystemClassLoader();
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (String c : classNames) {
            request.selectors(DiscoverySelectors.selectClass(Class.forName(c, false, loader)));
        }
        // No parallel execution, no extension auto-detection: the engine's defaults.
        request.configurationParameter("junit.jupiter.execution.parallel.enabled", "false");
        LauncherDiscoveryRequest req = request.build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(req, new Listener());

        String library = null;
        try {
            library = Class.forName("crawlercommons.robots.SimpleRobotRules").getProtectionDomain().getCodeSource().getLocation().toString();
        } catch (Throwable t) {
            library = null;
        }
        Files.write(out, Recorder.json(library).getBytes(StandardCharsets.UTF_8));
        int passed = 0;
        for (String s : Recorder.TESTS.values()) {
            if (s.equals("passed")) passed++;
        }
        System.err.println("capture: " + Recorder.TESTS.size() + " tests, " + passed + " passed, " + Recorder.CALLS.size() + " calls, "
                        + Recorder.SKIPPED.size() + " skipped -> " + out);
    }

    static void weave(Instrumentation inst) {
        new AgentBuilder.Default()
                        .disableClassFormatChanges()
                        .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                        .type(named("crawlercommons.robots.SimpleRobotRulesParser"))
                        .transform((b, type, cl, module, pd) -> b
                                        .visit(Advice.to(ParseAdvice.class).on(named("parseContent").and(not(isAbstract()))))
                                        .visit(Advice.to(FailedFetchAdvice.class).on(named("failedFetch")))
                                        .visit(Advice.to(SkipAdvice.class).on(named("getNumWarnings"))))
                        .type(named("crawlercommons.robots.SimpleRobotRules"))
                        .transform((b, type, cl, module, pd) -> b
                                        .visit(Advice.to(AllowedAdvice.class).on(named("isAllowed").and(not(isAbstract()))))
                                        .visit(Advice.to(SkipAdvice.class).on(namedOneOf("isAllowAll", "isAllowNone"))))
                        .type(named("crawlercommons.robots.BaseRobotRules"))
                        .transform((b, type, cl, module, pd) -> b
                                        .visit(Advice.to(SkipAdvice.class).on(namedOneOf("getCrawlDelay", "getSitemaps", "isDeferVisits", "isMatchedWildcard")
                                                        .and(not(isAbstract())))))
                        .installOn(inst);
    }

    public static final class ParseAdvice {
        @Advice.OnMethodEnter
        static void enter() {
            Recorder.PARSE_DEPTH.get()[0]++;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.AllArguments Object[] args,
                        @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object ret, @Advice.Thrown Throwable thrown) {
            if (--Recorder.PARSE_DEPTH.get()[0] == 0 && thrown == null) {
                Recorder.parsed(self, args, ret);
            }
        }
    }

    public static final class FailedFetchAdvice {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.AllArguments Object[] args, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object ret,
                        @Advice.Thrown Throwable thrown) {
            Recorder.failedFetch(args, ret);
        }
    }

    public static final class AllowedAdvice {
        @Advice.OnMethodEnter
        static void enter() {
            Recorder.ALLOW_DEPTH.get()[0]++;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object self, @Advice.Argument(0) Object url,
                        @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object ret, @Advice.Thrown Throwable thrown) {
            if (--Recorder.ALLOW_DEPTH.get()[0] == 0 && thrown == null) {
                Recorder.allowed(self, url, ret);
            }
        }
    }

    public static final class SkipAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.Origin("#m") String method) {
            Recorder.query(method);
        }
    }

    /** The test the main thread is running, and what it saw. */
    public static final class Recorder {
        public static final ThreadLocal<int[]> PARSE_DEPTH = ThreadLocal.withInitial(() -> new int[1]);
        public static final ThreadLocal<int[]> ALLOW_DEPTH = ThreadLocal.withInitial(() -> new int[1]);
        static final Map<Object, Parse> PARSED = Collections.synchronizedMap(new IdentityHashMap<>());
        static final Map<Object, Integer> FAILED = Collections.synchronizedMap(new IdentityHashMap<>());
        static final Map<String, String> TESTS = new TreeMap<>();
        /** {test, body_hex, names, sequence number, the call's JSON}. */
        static final List<String[]> CALLS = Collections.synchronizedList(new ArrayList<>());
        static final List<String> SKIPPED = Collections.synchronizedList(new ArrayList<>());
        /** The library's own split of the deprecated String names argument. */
        static final Pattern ROBOT_NAMES_SPLIT = Pattern.compile("\\s*,\\s*|\\s+");
        static volatile String test;

        static final class Parse {
            byte[] body;
            Object names;
            boolean stringApi;
            boolean exact;
            long maxCrawlDelay;
            String parserClass;
        }

        static boolean inLibrary() {
            return PARSE_DEPTH.get()[0] > 0 || ALLOW_DEPTH.get()[0] > 0;
        }

        public static void parsed(Object parser, Object[] args, Object rules) {
            if (rules == null) return;
            Parse p = new Parse();
            p.body = args[1] == null ? new byte[0] : ((byte[]) args[1]).clone();
            p.names = args[3] instanceof Collection ? new ArrayList<>((Collection<?>) args[3]) : args[3];
            p.stringApi = args[3] instanceof String;
            crawlercommons.robots.SimpleRobotRulesParser sp = (crawlercommons.robots.SimpleRobotRulesParser) parser;
            // The String API always parses without exact matching (see its source).
            p.exact = !p.stringApi && sp.isExactUserAgentMatching();
            p.maxCrawlDelay = sp.getMaxCrawlDelay();
            p.parserClass = parser.getClass().getName();
            PARSED.put(rules, p);
        }

        public static void failedFetch(Object[] args, Object rules) {
            if (rules != null) FAILED.put(rules, (Integer) args[0]);
            if (!inLibrary()) skip("failedFetch(" + args[0] + "): rules from an HTTP status code, no body");
        }

        public static void query(String method) {
            if (inLibrary()) return;
            switch (method) {
                case "getCrawlDelay":
                    skip("crawl-delay (getCrawlDelay)");
                    break;
                case "getSitemaps":
                    skip("sitemaps (getSitemaps)");
                    break;
                case "getNumWarnings":
                    skip("parse warnings (getNumWarnings)");
                    break;
                case "isDeferVisits":
                    skip("defer-visits flag (isDeferVisits: status-code handling)");
                    break;
                case "isMatchedWildcard":
                    skip("which group matched (isMatchedWildcard)");
                    break;
                default:
                    skip("rules mode (" + method + ")");
            }
        }

        public static void allowed(Object rules, Object url, Object verdict) {
            if (!(verdict instanceof Boolean)) return;
            Parse p = PARSED.get(rules);
            if (p == null) {
                Integer status = FAILED.get(rules);
                skip(status != null ? "isAllowed on rules from failedFetch(" + status + "): a status code, no body"
                                : "isAllowed on rules not parsed from a body (built with addRule, or deserialised)");
                return;
            }
            if (!p.parserClass.equals("crawlercommons.robots.SimpleRobotRulesParser")) {
                skip("isAllowed on rules parsed by " + p.parserClass + " (a parser subclass overriding user-agent matching)");
                return;
            }
            String agent;
            String namesDesc;
            if (p.stringApi) {
                String s = (String) p.names;
                String[] split = ROBOT_NAMES_SPLIT.split(s.toLowerCase(Locale.ROOT).trim());
                namesDesc = "String " + quote(s);
                if (split.length != 1) {
                    skip("multi-agent: parseContent(String " + quote(s) + ") splits into " + split.length + " names");
                    return;
                }
                agent = s;
            } else {
                List<?> names = (List<?>) p.names;
                StringBuilder d = new StringBuilder("Collection [");
                for (int i = 0; i < names.size(); i++) d.append(i == 0 ? "" : ", ").append(quote(String.valueOf(names.get(i))));
                namesDesc = d.append(']').toString();
                if (names.size() > 1) {
                    skip("multi-agent: parseContent(" + namesDesc + ")");
                    return;
                }
                agent = names.isEmpty() ? "*" : String.valueOf(names.get(0));
            }
            String urlText;
            String overload;
            if (url instanceof URL) {
                urlText = ((URL) url).toExternalForm();
                overload = "URL";
            } else {
                urlText = String.valueOf(url);
                overload = "String";
            }
            if (!wellFormed(agent) || !wellFormed(urlText)) {
                skip("agent or URL with a lone surrogate (no UTF-8 form)");
                return;
            }
            StringBuilder feeding = new StringBuilder("{\"api\": \"");
            feeding.append(p.stringApi ? "string" : "collection").append("\", \"names\": ");
            feeding.append(jsonString(namesDesc));
            feeding.append(", \"exact\": ").append(p.exact);
            feeding.append(", \"max_crawl_delay\": ").append(p.maxCrawlDelay);
            feeding.append(", \"is_allowed\": \"").append(overload).append("\"}");
            StringBuilder sb = new StringBuilder("{\"test\": ");
            sb.append(jsonString(test));
            sb.append(", \"body_hex\": \"").append(hex(p.body)).append('"');
            sb.append(", \"agent\": ").append(jsonString(agent));
            sb.append(", \"url\": ").append(jsonString(urlText));
            sb.append(", \"allowed\": ").append(verdict);
            sb.append(", \"feeding\": ").append(feeding).append('}');
            CALLS.add(new String[] { String.valueOf(test), hex(p.body), namesDesc, String.format("%09d", CALLS.size()), sb.toString() });
        }

        static void skip(String what) {
            SKIPPED.add("{\"test\": " + jsonString(test) + ", \"what\": " + jsonString(what) + "}");
        }

        static String quote(String s) {
            return "\"" + s + "\"";
        }

        static boolean wellFormed(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) return false;
                    i++;
                } else if (Character.isLowSurrogate(c)) {
                    return false;
                }
            }
            return true;
        }

        static String hex(byte[] b) {
            StringBuilder sb = new StringBuilder(b.length * 2);
            for (byte x : b) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
            return sb.toString();
        }

        /** ASCII JSON string (null as null); non-ASCII as \\u escapes. */
        static String jsonString(String s) {
            if (s == null) return "null";
            StringBuilder sb = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') sb.append('\\').append(c);
                else if (c >= 0x20 && c < 0x7f) sb.append(c);
                else sb.append(String.format("\\u%04x", (int) c));
            }
            return sb.append('"').toString();
        }

        static String json(String library) {
            StringBuilder sb = new StringBuilder("{\n\"tests\": {");
            boolean first = true;
            for (Map.Entry<String, String> e : TESTS.entrySet()) {
                sb.append(first ? "\n  " : ",\n  ").append(jsonString(e.getKey())).append(": ").append(jsonString(e.getValue()));
                first = false;
            }
            sb.append("\n},\n\"calls\": [");
            first = true;
            List<String[]> calls = new ArrayList<>(CALLS);
            calls.sort(Comparator.comparing((String[] c) -> c[0]).thenComparing(c -> c[1]).thenComparing(c -> c[2]).thenComparing(c -> c[3]));
            for (String[] c : calls) {
                sb.append(first ? "\n  " : ",\n  ").append(c[4]);
                first = false;
            }
            sb.append("\n],\n\"skipped\": [");
            first = true;
            List<String> skipped = new ArrayList<>(SKIPPED);
            Collections.sort(skipped);
            for (String c : skipped) {
                sb.append(first ? "\n  " : ",\n  ").append(c);
                first = false;
            }
            sb.append("\n],\n\"library\": ").append(jsonString(library)).append("\n}\n");
            return sb.toString();
        }
    }

    /** Names each test and keeps its outcome; tells the recorder which test runs. */
    static final class Listener implements TestExecutionListener {
        static String name(TestIdentifier id) {
            String base = id.getDisplayName();
            if (id.getSource().isPresent() && id.getSource().get() instanceof MethodSource) {
                MethodSource m = (MethodSource) id.getSource().get();
                String cls = m.getClassName();
                base = cls.substring(cls.lastIndexOf('.') + 1) + "." + m.getMethodName();
            }
            UniqueId.Segment last = id.getUniqueIdObject().getLastSegment();
            if (last.getType().endsWith("-invocation")) {
                base += "[" + last.getValue().replace("#", "") + "]";
            }
            return base;
        }

        @Override
        public void executionStarted(TestIdentifier id) {
            if (id.isTest()) Recorder.test = name(id);
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) Recorder.TESTS.put(name(id), "skipped: " + reason);
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) return;
            String status;
            switch (result.getStatus()) {
                case SUCCESSFUL:
                    status = "passed";
                    break;
                case ABORTED:
                    status = "aborted: " + result.getThrowable().map(String::valueOf).orElse("");
                    break;
                default:
                    status = "failed: " + result.getThrowable().map(String::valueOf).orElse("");
            }
            String n = name(id);
            if (Recorder.TESTS.containsKey(n)) throw new IllegalStateException("two tests named " + n);
            Recorder.TESTS.put(n, status);
            Recorder.test = null;
        }
    }
}
