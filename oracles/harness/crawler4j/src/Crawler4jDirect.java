/*
 * Direct run of crawler4j 4.4.0's robots.txt code for repdiff's fidelity
 * test: the reference that Crawler4jOracle (the protocol harness) is
 * compared against. It shares no code with the harness and follows
 * crawler4j's own call sequence, one parse per query, no caching:
 *
 *   canonical = URLCanonicalizer.getCanonicalURL(url)   (CrawlController.addSeed;
 *                                                         null: dropped, "Invalid seed URL")
 *   config = new RobotstxtConfig(); config.setUserAgentName(agent)
 *   text = new String(body)                              (RobotstxtServer.fetchDirectives,
 *                                                         200 text/plain, no charset)
 *   directives = RobotstxtParser.parse(text, config)     (an Exception: new HostDirectives(config))
 *   RobotstxtServer.allows: new URL(canonical) (malformed: true),
 *                           directives.allows(url.getPath())
 *
 * crawl_delay, sitemaps and request_rate are unsupported (HostDirectives
 * has no getter for them).
 *
 * stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
 * stdout: one line per input, {"answers": [...]}, answers as in protocol v2
 * (docs/protocol.md), without `explain`. Run with -Dfile.encoding=UTF-8 and
 * -XX:+UnlockExperimentalVMOptions -XX:hashCode=2, as the harness (see there).
 */

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import edu.uci.ics.crawler4j.robotstxt.HostDirectives;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtConfig;
import edu.uci.ics.crawler4j.robotstxt.RobotstxtParser;
import edu.uci.ics.crawler4j.url.URLCanonicalizer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

public class Crawler4jDirect {

    static JsonObject answer(String outcome) {
        JsonObject a = new JsonObject();
        a.addProperty("outcome", outcome);
        return a;
    }

    static boolean allows(byte[] body, String agent, URL url) {
        RobotstxtConfig config = new RobotstxtConfig();
        config.setUserAgentName(agent);
        HostDirectives directives;
        try {
            directives = RobotstxtParser.parse(new String(body), config);
        } catch (Exception e) {
            directives = new HostDirectives(config);
        }
        return directives.allows(url.getPath());
    }

    static JsonObject canFetch(byte[] body, String agent, String url) {
        String canonical;
        try {
            canonical = URLCanonicalizer.getCanonicalURL(url);
        } catch (Throwable t) {
            JsonObject e = answer("error");
            e.addProperty("kind", t.getClass().getName());
            e.addProperty("message", t.getMessage() == null ? "" : t.getMessage());
            return e;
        }
        if (canonical == null) {
            JsonObject e = answer("error");
            e.addProperty("kind", "InvalidSeedURL");
            e.addProperty("message", "URLCanonicalizer.getCanonicalURL returned null: crawler4j drops the URL");
            return e;
        }
        try {
            return answer(allows(body, agent, new URL(canonical)) ? "allowed" : "disallowed");
        } catch (MalformedURLException e) {
            return answer("allowed");
        } catch (Throwable t) {
            JsonObject e = answer("error");
            e.addProperty("kind", t.getClass().getName());
            e.addProperty("message", t.getMessage() == null ? "" : t.getMessage());
            return e;
        }
    }

    public static void main(String[] args) throws Exception {
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())) {
            System.err.println("Crawler4jDirect: default charset is " + Charset.defaultCharset()
                    + "; run with -Dfile.encoding=UTF-8");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonObject input = JsonParser.parseString(line).getAsJsonObject();
            byte[] body = Base64.getDecoder().decode(input.get("body_b64").getAsString());
            JsonArray answers = new JsonArray();
            for (JsonElement q : input.getAsJsonArray("queries")) {
                JsonObject query = q.getAsJsonObject();
                String ask = query.get("ask").getAsString();
                if (ask.equals("can_fetch")) {
                    answers.add(canFetch(body, query.get("agent").getAsString(), query.get("url").getAsString()));
                } else {
                    JsonObject u = answer("unsupported");
                    u.addProperty("reason", "HostDirectives has no getter for " + ask);
                    answers.add(u);
                }
            }
            JsonObject result = new JsonObject();
            result.add("answers", answers);
            out.println(result);
            out.flush();
        }
    }
}
