#!/usr/bin/ruby
# frozen_string_literal: true

# The parser's own speed: a direct loop of webrobots over a census's exact
# files and questions (`repdiff census queries`), for `cargo xtask bench`'s
# direct row. Every file is read and decoded first; then only the library's
# calls are timed with the process's CPU clock, fed as harness.rb feeds it
# (as Mechanize does: one WebRobots per agent per file, the raw bytes as an
# ASCII-8BIT String, allowed?(url)).
#
# Run:    ruby loop.rb QUERIES.jsonl
# Prints: {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
#         in file order: a allowed, d disallowed, e an exception.

require 'json'
require 'webrobots'

files = File.readlines(ARGV.fetch(0), chomp: true).map do |line|
  rec = JSON.parse(line)
  [[rec['body_hex']].pack('H*').b, rec['queries'].map { |q| [q['agent'], q['url']] }]
end

start = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
verdicts = +''
files.each do |body, queries|
  per_agent = {}
  queries.each do |agent, url|
    robots = per_agent[agent] ||= WebRobots.new(agent, http_get: ->(_uri) { body.dup }, crawl_delay: :ignore)
    verdicts << (robots.allowed?(url) ? 'a' : 'd')
  rescue StandardError, SystemStackError
    verdicts << 'e'
  end
end
cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - start
puts JSON.generate({ cpu_seconds: cpu, verdicts: verdicts })
