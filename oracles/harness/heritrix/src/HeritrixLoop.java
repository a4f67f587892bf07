/*
 * The parser's own speed: a direct loop of Heritrix 3.13.0's robots.txt
 * code over a census's exact files and questions (`repdiff census
 * queries`), for the bench's "parsers' own speed" table. Every file is read
 * and decoded first; then only Heritrix's calls are timed with the
 * process's CPU clock (JIT and GC threads included), fed as
 * HeritrixDirect feeds it, which is as a crawl does: the body recorded as
 * an HTTP 200 response by a real Recorder and taken in once per host by
 * CrawlServer.updateRobots, then PreconditionEnforcer's checks and the
 * crawl's RobotsPolicy for every question (HeritrixDirect.canFetch).
 *
 *   java -Dfile.encoding=UTF-8 ... HeritrixLoop QUERIES.jsonl
 *
 * Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
 * in file order: a allowed, d disallowed, e an error.
 */

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.SequenceInputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import org.archive.modules.CrawlURI;
import org.archive.modules.net.CrawlServer;
import org.archive.net.UURIFactory;
import org.archive.util.Recorder;
import org.json.JSONArray;
import org.json.JSONObject;

public final class HeritrixLoop {

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: HeritrixLoop QUERIES.jsonl");
            System.exit(2);
        }
        List<byte[]> bodies = new ArrayList<>();
        List<JSONArray> queries = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JSONObject rec = new JSONObject(line);
            bodies.add(HexFormat.of().parseHex(rec.getString("body_hex")));
            queries.add(rec.getJSONArray("queries"));
        }
        File scratch = Files.createTempDirectory("heritrix-loop").toFile();
        StringBuilder verdicts = new StringBuilder();
        long start = cpuNanos();
        for (int f = 0; f < bodies.size(); f++) {
            byte[] body = bodies.get(f);
            JSONArray qs = queries.get(f);
            byte[] headers = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            Recorder recorder = Recorder.wrapInputStreamWithHttpRecord(scratch, "file" + f,
                new SequenceInputStream(new ByteArrayInputStream(headers), new ByteArrayInputStream(body)),
                null);
            try {
                CrawlURI robotsTxt = new CrawlURI(UURIFactory.getInstance("http://example.test/robots.txt"));
                robotsTxt.setFetchType(CrawlURI.FetchType.HTTP_GET);
                robotsTxt.setFetchStatus(200);
                robotsTxt.setRecorder(recorder);
                CrawlServer server = new CrawlServer("example.test");
                server.updateRobots(robotsTxt);
                for (int i = 0; i < qs.length(); i++) {
                    JSONObject q = qs.getJSONObject(i);
                    String outcome;
                    try {
                        outcome = HeritrixDirect.canFetch(server, q.optString("agent"), q.optString("url"))
                            .getString("outcome");
                    } catch (Exception e) {
                        outcome = "error";
                    }
                    verdicts.append(outcome.equals("allowed") ? 'a' : outcome.equals("disallowed") ? 'd' : 'e');
                }
            } finally {
                recorder.cleanup();
            }
        }
        double seconds = (cpuNanos() - start) / 1e9;
        File[] left = scratch.listFiles();
        if (left != null) {
            for (File x : left) x.delete();
        }
        scratch.delete();
        System.out.println("{\"cpu_seconds\": " + seconds + ", \"verdicts\": \"" + verdicts + "\"}");
    }
}
