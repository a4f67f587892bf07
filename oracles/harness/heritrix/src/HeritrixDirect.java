/*
 * Direct run of Heritrix 3.13.0's robots.txt code for repdiff's fidelity test:
 * the reference that HeritrixOracle.java (the protocol harness) is compared
 * against. It shares no code with the harness and goes through the
 * crawler's own objects wherever heritrix-modules has them:
 *
 *   - each body is served as a recorded HTTP 200 response: a real
 *     org.archive.util.Recorder (Recorder.wrapInputStreamWithHttpRecord, the
 *     helper Heritrix's tests use) records "HTTP/1.1 200 OK ... \r\n\r\n" +
 *     body, finds the end of the headers itself, and a CrawlURI for
 *     http://example.test/robots.txt (HTTP_GET, status 200) carries it into
 *     CrawlServer.updateRobots(curi), which builds the Robotstxt exactly as
 *     in a crawl (from the recorder's content replay stream);
 *   - can_fetch: a CrawlURI made by UURIFactory.getInstance(url) (refused =
 *     error), then PreconditionEnforcer's two checks (heritrix-engine, not
 *     on this class path, so written out here: robots only for http/https,
 *     and a path of /robots.txt passes), then the crawl's RobotsPolicy from
 *     a CrawlMetadata bean (default policy "obey", afterPropertiesSet() as
 *     Spring calls it): metadata.getRobotsPolicy().allows(
 *     metadata.getUserAgent(), curi, server.getRobotstxt());
 *   - the bean's userAgentTemplate is "Mozilla/5.0 (compatible; AGENT
 *     +@OPERATOR_CONTACT_URL@)", operatorContactUrl http://example.test/contact;
 *     an agent with a space or '(' is used as the whole UA;
 *   - crawl_delay: server.getRobotstxt().getDirectivesFor(ua).getCrawlDelay()
 *     as DispositionProcessor reads it, -1 meaning none;
 *   - sitemaps: new ExtractorRobotsTxt().parseRobotsTxt(
 *     recorder.getContentReplayInputStream()), as its innerExtract does.
 *
 * stdin: one JSON object per line {"body_b64": "...", "queries": [...]}.
 * stdout: one line per input, {"answers": [...]} as in protocol v2, without
 * `explain`. Run with -Dfile.encoding=UTF-8 (Heritrix decodes robots.txt in
 * the JVM default charset; this program refuses any other).
 */

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Base64;
import java.util.List;

import org.archive.modules.CrawlMetadata;
import org.archive.modules.CrawlURI;
import org.archive.modules.extractor.ExtractorRobotsTxt;
import org.archive.modules.net.CrawlServer;
import org.archive.modules.net.Robotstxt;
import org.archive.net.UURI;
import org.archive.net.UURIFactory;
import org.archive.url.URIException;
import org.archive.util.Recorder;
import org.json.JSONArray;
import org.json.JSONObject;

public final class HeritrixDirect {
    private static final String CONTACT = "http://example.test/contact";

    public static void main(String[] args) throws Exception {
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())) {
            System.err.println("HeritrixDirect: default charset is " + Charset.defaultCharset()
                + "; run with -Dfile.encoding=UTF-8");
            System.exit(2);
        }
        File scratch = Files.createTempDirectory("heritrix-direct").toFile();
        scratch.deleteOnExit();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        int n = 0;
        while ((line = lines.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JSONObject input = new JSONObject(line);
            byte[] body = Base64.getDecoder().decode(input.getString("body_b64"));
            JSONArray answers = answer(scratch, "case" + (n++), body, input.getJSONArray("queries"));
            out.println(new JSONObject().put("answers", answers).toString());
            out.flush();
        }
        File[] left = scratch.listFiles();
        if (left != null) {
            for (File f : left) {
                f.delete();
            }
        }
        scratch.delete();
    }

    private static JSONArray answer(File scratch, String name, byte[] body, JSONArray queries)
            throws Exception {
        byte[] headers = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
            + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        Recorder recorder = Recorder.wrapInputStreamWithHttpRecord(scratch, name,
            new SequenceInputStream(new ByteArrayInputStream(headers), new ByteArrayInputStream(body)),
            null);
        JSONArray answers = new JSONArray();
        try {
            CrawlURI robotsTxt = new CrawlURI(UURIFactory.getInstance("http://example.test/robots.txt"));
            robotsTxt.setFetchType(CrawlURI.FetchType.HTTP_GET);
            robotsTxt.setFetchStatus(200);
            robotsTxt.setRecorder(recorder);
            CrawlServer server = new CrawlServer("example.test");
            server.updateRobots(robotsTxt);
            if (!server.isValidRobots() || server.getRobotstxt() == null) {
                throw new IllegalStateException("updateRobots did not take the robots.txt");
            }
            List<String> sitemaps = null;
            for (int i = 0; i < queries.length(); i++) {
                JSONObject q = queries.getJSONObject(i);
                String ask = q.optString("ask");
                JSONObject a;
                try {
                    if (ask.equals("can_fetch")) {
                        a = canFetch(server, q.optString("agent"), q.optString("url"));
                    } else if (ask.equals("crawl_delay")) {
                        a = crawlDelay(server.getRobotstxt(), q.optString("agent"));
                    } else if (ask.equals("sitemaps")) {
                        if (sitemaps == null) {
                            sitemaps = new ExtractorRobotsTxt()
                                .parseRobotsTxt(recorder.getContentReplayInputStream());
                        }
                        a = new JSONObject().put("outcome", "value").put("value",
                            new JSONObject().put("type", "list").put("value", new JSONArray(sitemaps)));
                    } else {
                        a = new JSONObject().put("outcome", "unsupported")
                            .put("reason", "Heritrix has no " + ask);
                    }
                } catch (Exception e) {
                    a = failure(e);
                }
                answers.put(a);
            }
        } finally {
            recorder.cleanup();
        }
        return answers;
    }

    private static CrawlMetadata metadata(String agent) {
        CrawlMetadata m = new CrawlMetadata();
        m.setUserAgentTemplate("Mozilla/5.0 (compatible; " + agent + " +@OPERATOR_CONTACT_URL@)");
        m.setOperatorContactUrl(CONTACT);
        m.afterPropertiesSet();
        return m;
    }

    private static boolean wholeUserAgent(String agent) {
        return agent.contains(" ") || agent.contains("(");
    }

    static JSONObject canFetch(CrawlServer server, String agent, String url) {
        CrawlURI curi;
        try {
            curi = new CrawlURI(UURIFactory.getInstance(url));
        } catch (Exception e) {
            return failure(e);
        }
        UURI uuri = curi.getUURI();
        String scheme = uuri.getScheme().toLowerCase();
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return new JSONObject().put("outcome", "allowed");
        }
        try {
            if (uuri.getPath() != null && uuri.getPath().equals("/robots.txt")) {
                return new JSONObject().put("outcome", "allowed");
            }
        } catch (URIException e) {
            // PreconditionEnforcer logs this and goes on to the robots check
        }
        CrawlMetadata m = metadata(agent);
        String ua = wholeUserAgent(agent) ? agent : m.getUserAgent();
        boolean ok = m.getRobotsPolicy().allows(ua, curi, server.getRobotstxt());
        return new JSONObject().put("outcome", ok ? "allowed" : "disallowed");
    }

    private static JSONObject crawlDelay(Robotstxt robots, String agent) {
        String ua = wholeUserAgent(agent) ? agent : metadata(agent).getUserAgent();
        float seconds = robots.getDirectivesFor(ua).getCrawlDelay();
        if (seconds < 0) {
            return new JSONObject().put("outcome", "value").put("value", new JSONObject().put("type", "none"));
        }
        if (Float.isInfinite(seconds)) {
            return new JSONObject().put("outcome", "error").put("kind", "repdiff.Unrepresentable")
                .put("message", "crawl delay " + seconds + " is not a finite JSON number");
        }
        return new JSONObject().put("outcome", "value").put("value",
            new JSONObject().put("type", "float").put("value", new BigDecimal(Float.toString(seconds))));
    }

    private static JSONObject failure(Exception e) {
        return new JSONObject().put("outcome", "error").put("kind", e.getClass().getName())
            .put("message", e.getMessage() != null ? e.getMessage() : e.toString());
    }
}
