/*
 * Direct run of crawler-commons' SimpleRobotRulesParser for repdiff's fidelity
 * test: the reference that CrawlerCommonsOracle (the protocol harness) is
 * compared against. It shares no code with the harness; it is written after
 * the crawlers' own call sequence, one parse per query, no caching:
 *
 *   -Drepdiff.feeding=nutch (default), as Apache Nutch 1.22's Fetcher,
 *   RobotRulesParser.setConf and HttpRobotRulesParser.getRobotRulesSet do:
 *     checkConfiguration(): http.agent.name.trim() empty -> IllegalArgumentException
 *     agentNames = "*".equals(name.trim()) ? {} : {name.trim().toLowerCase()}
 *     u = new URL(url)                       (FetchItem.create)
 *     robotsUrl = new URL(u, "/robots.txt")
 *     rules = parser.parseContent(robotsUrl, content, "text/plain", agentNames)
 *     rules.isAllowed(u)                     (FetcherThread, the URL overload)
 *   -Drepdiff.feeding=stormcrawler, as StormCrawler 3.4.0's RobotRulesParser,
 *   FetcherBolt and HttpRobotRulesParser do:
 *     name = http.agent.name.toLowerCase(Locale.ROOT), must match [a-zA-Z_-]+
 *     (else RuntimeException "Invalid agent name: ..."); agentNames = {name}
 *     new URL(url) must parse (FetcherBolt), then
 *     rules.isAllowed(url)                   (the String overload)
 *   parser = new SimpleRobotRulesParser(); parser.setMaxCrawlDelay(Long.MAX_VALUE)
 *   crawl_delay: getCrawlDelay() ms -> seconds; sitemaps: getSitemaps() of the
 *   body parsed with no agent name, for http://example.test/robots.txt when
 *   the query has no URL.
 *
 * stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
 * stdout: one line per input, {"answers": [...]}, answers as in protocol v2
 * (docs/protocol.md), without `explain`.
 */

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.stream.JsonWriter;

import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

public class CrawlerCommonsDirect {

    interface Answer {
        void write(JsonWriter w) throws Exception;
    }

    static Answer verdict(boolean allowed) {
        return w -> w.beginObject().name("outcome").value(allowed ? "allowed" : "disallowed").endObject();
    }

    static Answer failure(Throwable t) {
        return w -> w.beginObject().name("outcome").value("error")
                .name("kind").value(t.getClass().getName())
                .name("message").value(t.getMessage() == null ? "" : t.getMessage()).endObject();
    }

    static Answer delay(long millis) {
        return w -> {
            w.beginObject().name("outcome").value("value").name("value").beginObject();
            if (millis == Long.MIN_VALUE) {
                w.name("type").value("none");
            } else {
                BigDecimal seconds = BigDecimal.valueOf(millis).divide(BigDecimal.valueOf(1000));
                if (seconds.stripTrailingZeros().scale() <= 0) {
                    w.name("type").value("int").name("value").value(seconds.longValueExact());
                } else {
                    w.name("type").value("float").name("value").value(seconds.doubleValue());
                }
            }
            w.endObject().endObject();
        };
    }

    static Answer sitemaps(List<String> urls) {
        return w -> {
            w.beginObject().name("outcome").value("value").name("value").beginObject()
                    .name("type").value("list").name("value").beginArray();
            for (String u : urls) w.value(u);
            w.endArray().endObject().endObject();
        };
    }

    static Answer notSupported(String why) {
        return w -> w.beginObject().name("outcome").value("unsupported").name("reason").value(why).endObject();
    }

    final boolean stormcrawler;

    CrawlerCommonsDirect(boolean stormcrawler) {
        this.stormcrawler = stormcrawler;
    }

    SimpleRobotRulesParser newParser() {
        SimpleRobotRulesParser p = new SimpleRobotRulesParser();
        p.setMaxCrawlDelay(Long.MAX_VALUE);
        return p;
    }

    /** The crawler's robot names for http.agent.name = agentName (throws as its setConf does). */
    List<String> agentNames(String agentName) {
        List<String> names = new ArrayList<>();
        if (stormcrawler) {
            agentName = agentName.toLowerCase(Locale.ROOT);
            if (!agentName.matches("[a-zA-Z_-]+")) {
                throw new RuntimeException("Invalid agent name: " + agentName
                        + ". It MUST contain only uppercase and lowercase letters (\"a-z\" and \"A-Z\"), underscores (\"_\"), and hyphens (\"-\")");
            }
            names.add(agentName);
        } else {
            if (agentName == null || agentName.trim().length() == 0) {
                throw new IllegalArgumentException("Fetcher: No agents listed in 'http.agent.name' property.");
            }
            agentName = agentName.trim();
            if (!agentName.equals("*")) {
                names.add(agentName.toLowerCase());
            }
        }
        return names;
    }

    BaseRobotRules parse(byte[] content, String robotsUrl, List<String> names) {
        return newParser().parseContent(robotsUrl, content, "text/plain", names);
    }

    static String robotsTxtOf(String url) throws Exception {
        if (url.isEmpty()) return "http://example.test/robots.txt";
        return new URL(new URL(url), "/robots.txt").toString();
    }

    Answer ask(byte[] content, JsonObject q) {
        String ask = q.get("ask").getAsString();
        String agent = q.has("agent") ? q.get("agent").getAsString() : "";
        String url = q.has("url") ? q.get("url").getAsString() : "";
        try {
            if (ask.equals("can_fetch")) {
                List<String> names = agentNames(agent);
                URL u = new URL(url);
                BaseRobotRules rules = parse(content, new URL(u, "/robots.txt").toString(), names);
                if (stormcrawler) return verdict(rules.isAllowed(url));
                Method m = BaseRobotRules.class.getMethod("isAllowed", URL.class);
                try {
                    return verdict((Boolean) m.invoke(rules, u));
                } catch (InvocationTargetException e) {
                    return failure(e.getCause());
                }
            } else if (ask.equals("crawl_delay")) {
                List<String> names = agentNames(agent);
                return delay(parse(content, robotsTxtOf(url), names).getCrawlDelay());
            } else if (ask.equals("sitemaps")) {
                return sitemaps(parse(content, robotsTxtOf(url), new ArrayList<>()).getSitemaps());
            } else {
                return notSupported("crawler-commons keeps no request rate");
            }
        } catch (Throwable t) {
            return failure(t);
        }
    }

    public static void main(String[] args) throws Exception {
        boolean sc = System.getProperty("repdiff.feeding", "nutch").startsWith("stormcrawler");
        CrawlerCommonsDirect direct = new CrawlerCommonsDirect(sc);
        PrintStream realOut = System.out;
        System.setOut(System.err); // anything the library might print stays off the answers
        Writer out = new OutputStreamWriter(realOut, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonObject c = JsonParser.parseString(line).getAsJsonObject();
            byte[] body = Base64.getDecoder().decode(c.get("body_b64").getAsString());
            StringWriter sw = new StringWriter();
            JsonWriter w = new JsonWriter(sw);
            w.setHtmlSafe(false);
            w.beginObject().name("answers").beginArray();
            for (JsonElement q : c.getAsJsonArray("queries")) {
                direct.ask(body, q.getAsJsonObject()).write(w);
            }
            w.endArray().endObject();
            w.flush();
            out.write(sw.toString());
            out.write('\n');
            out.flush();
        }
    }
}
