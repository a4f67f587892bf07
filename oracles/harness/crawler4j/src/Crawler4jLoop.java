/*
 * The parser's own speed: a direct loop of crawler4j 4.4.0's
 * RobotstxtParser/HostDirectives over a census's exact files and questions
 * (`repdiff census queries`), for the bench's "parsers' own speed" table.
 * Every file is read and decoded first; then only the library's calls are
 * timed with the process's CPU clock (JIT and GC threads included), fed as
 * Crawler4jOracle feeds them (as crawler4j crawls): the body decoded once
 * per file as RobotstxtServer does (new String(bytes), the JVM default
 * charset, UTF-8), parsed once per agent of the file (a HostDirectives is
 * built for one configured agent; an exception from parse leaves an empty
 * HostDirectives), and per question URLCanonicalizer.getCanonicalURL (null:
 * the URL is dropped, `e`), new URL(canonical) (malformed: allowed) and
 * HostDirectives.allows(url.getPath()).
 *
 *   java -XX:+UnlockExperimentalVMOptions -XX:hashCode=2 -Dfile.encoding=UTF-8 ... Crawler4jLoop QUERIES.jsonl
 *
 * Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
 * in file order: a allowed, d disallowed, e anything else.
 */

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import edu.uci.ics.crawler4j.robotstxt.HostDirectives;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtConfig;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtParser;
import edu.uci.ics.crawler4j.url.URLCanonicalizer;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

public class Crawler4jLoop {

    record File(byte[] body, List<String[]> queries) {}

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The directives for one agent, as Crawler4jOracle.Run.directives builds them. */
    static HostDirectives directives(String content, String agent) {
        RobotstxtConfig config = new RobotstxtConfig();
        config.setUserAgentName(agent);
        try {
            return RobotstxtParser.parse(content, config);
        } catch (Exception e) {
            return new HostDirectives(config);
        }
    }

    static char verdict(Map<String, HostDirectives> parsed, String content, String agent, String url) {
        String canonical = URLCanonicalizer.getCanonicalURL(url);
        if (canonical == null) return 'e';
        URL u;
        try {
            u = new URL(canonical);
        } catch (MalformedURLException e) {
            return 'a';
        }
        String path = u.getPath();
        HostDirectives d = parsed.get(agent);
        if (d == null) {
            d = directives(content, agent);
            parsed.put(agent, d);
        }
        return d.allows(path) ? 'a' : 'd';
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: Crawler4jLoop QUERIES.jsonl");
            System.exit(2);
        }
        PrintStream stdout = System.out;
        System.setOut(System.err);
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())
                || System.identityHashCode(new Object()) != 1) {
            System.err.println("Crawler4jLoop: run java with -Dfile.encoding=UTF-8 and "
                    + "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2, as the harness "
                    + "(oracles/harness/crawler4j/oracle.yaml)");
            System.exit(2);
        }
        List<File> files = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonObject rec = JsonParser.parseString(line).getAsJsonObject();
            List<String[]> qs = new ArrayList<>();
            for (JsonElement q : rec.getAsJsonArray("queries")) {
                JsonObject o = q.getAsJsonObject();
                qs.add(new String[] {o.get("agent").getAsString(), o.get("url").getAsString()});
            }
            files.add(new File(HexFormat.of().parseHex(rec.get("body_hex").getAsString()), qs));
        }
        StringBuilder verdicts = new StringBuilder();
        long start = cpuNanos();
        for (File f : files) {
            // RobotstxtServer.fetchDirectives: a text/plain 200 without a charset.
            String content = new String(f.body());
            Map<String, HostDirectives> parsed = new HashMap<>();
            for (String[] q : f.queries()) {
                try {
                    verdicts.append(verdict(parsed, content, q[0], q[1]));
                } catch (Throwable t) {
                    verdicts.append('e');
                }
            }
        }
        double seconds = (cpuNanos() - start) / 1e9;
        stdout.println("{\"cpu_seconds\": " + seconds + ", \"verdicts\": \"" + verdicts + "\"}");
        stdout.flush();
    }
}
