/*
 * The parser's own speed: a direct loop of crawler-commons'
 * SimpleRobotRulesParser over a census's exact files and questions
 * (`repdiff census queries`), for the bench's "parsers' own speed" table.
 * Every file is read and decoded first; then only the library's calls are
 * timed with the process's CPU clock (JIT and GC threads included: they are
 * part of what the library costs in its runtime), fed as the crawler of
 * -Drepdiff.feeding feeds it (CrawlerCommonsDirect's agent names and
 * parseContent call): a crawler parses a host's robots.txt once for its one
 * agent, so here each file is parsed once per (robots URL, agent), then
 * isAllowed per question.
 *
 *   java ... CrawlerCommonsLoop QUERIES.jsonl
 *
 * Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
 * in file order: a allowed, d disallowed, e an exception.
 */

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import crawlercommons.robots.BaseRobotRules;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

public class CrawlerCommonsLoop {

    record File(byte[] body, List<String[]> queries) {}

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: CrawlerCommonsLoop QUERIES.jsonl");
            System.exit(2);
        }
        boolean sc = System.getProperty("repdiff.feeding", "nutch").startsWith("stormcrawler");
        CrawlerCommonsDirect feed = new CrawlerCommonsDirect(sc);
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
        // Nutch's isAllowed(URL) is not in 1.4, which this source also builds against.
        Method isAllowedUrl = sc ? null : BaseRobotRules.class.getMethod("isAllowed", URL.class);
        StringBuilder verdicts = new StringBuilder();
        long start = cpuNanos();
        for (File f : files) {
            Map<String, Object> parsed = new HashMap<>();
            for (String[] q : f.queries()) {
                String agent = q[0], url = q[1];
                try {
                    URL page = new URL(url);
                    String robotsUrl = new URL(page, "/robots.txt").toString();
                    Object rules = parsed.computeIfAbsent(robotsUrl + "\u0000" + agent, k -> {
                        try {
                            return feed.parse(f.body(), robotsUrl, feed.agentNames(agent));
                        } catch (RuntimeException e) {
                            return e;
                        }
                    });
                    if (rules instanceof RuntimeException e) throw e;
                    BaseRobotRules r = (BaseRobotRules) rules;
                    boolean ok = sc ? r.isAllowed(url) : (Boolean) isAllowedUrl.invoke(r, page);
                    verdicts.append(ok ? 'a' : 'd');
                } catch (Throwable t) {
                    verdicts.append('e');
                }
            }
        }
        double seconds = (cpuNanos() - start) / 1e9;
        System.out.println("{\"cpu_seconds\": " + seconds + ", \"verdicts\": \"" + verdicts + "\"}");
    }
}
