#!/usr/bin/ruby
# frozen_string_literal: true

# Direct call of webrobots, the reference for the fidelity test of
# oracles/harness/webrobots/harness.rb. Shares no code with the harness.
#
# stdin:  one JSON object a line, {"body_b64": "...", "queries": [{"ask", "agent", "url"}, ...]}
# stdout: one JSON line per input, {"answers": [...]}, answers encoded as in
#         docs/protocol.md (no `explain`).
#
# The library is called the way its README shows (WebRobots.new(agent),
# allowed?(url), crawl_delay(url), sitemaps(url)), a new WebRobots per query,
# with the body as Mechanize 2.8.5 hands it over: the raw bytes as an
# ASCII-8BIT String returned by http_get (Mechanize::HTTP::Agent#get_robots),
# and crawl_delay: :ignore so nothing sleeps. crawl_delay and sitemaps come
# with an empty url and ask about http://example.test/.

require 'base64'
require 'json'
require 'webrobots'

$stdin.binmode
$stdout.binmode
$stdout.sync = true

def utf8(s)
  s.to_s.dup.force_encoding('UTF-8').scrub("\uFFFD")
end

$stdin.each_line do |line|
  next if line.strip.empty?

  input = JSON.parse(line)
  body = Base64.decode64(input['body_b64']).b

  answers = input['queries'].map do |query|
    url = query['url']
    url = 'http://example.test/' if url.empty? && query['ask'] != 'can_fetch'
    robots = WebRobots.new(query['agent'], http_get: ->(_uri) { body.dup }, crawl_delay: :ignore)
    begin
      case query['ask']
      when 'can_fetch'
        { outcome: robots.allowed?(url) ? 'allowed' : 'disallowed' }
      when 'crawl_delay'
        delay = robots.crawl_delay(url)
        if delay.is_a?(Float) && !delay.finite?
          { outcome: 'error', kind: 'repdiff.Unrepresentable', message: "crawl delay #{delay} is not finite" }
        elsif delay.is_a?(Integer) && delay.bit_length < 64
          { outcome: 'value', value: { type: 'int', value: delay } }
        else
          { outcome: 'value', value: { type: 'float', value: delay.to_f } }
        end
      when 'sitemaps'
        { outcome: 'value', value: { type: 'list', value: robots.sitemaps(url).map { |s| utf8(s) } } }
      else
        { outcome: 'unsupported', reason: "no #{query['ask']} in webrobots" }
      end
    rescue StandardError, SystemStackError => e
      { outcome: 'error', kind: e.class.name, message: utf8(e.message) }
    end
  end
  $stdout.write(JSON.generate({ answers: answers }) + "\n")
end
