#!/usr/bin/ruby
# frozen_string_literal: true

# repdiff oracle harness (protocol v2, docs/protocol.md) for Ruby's webrobots,
# the robots.txt parser behind Mechanize, as Debian ships it (ruby-webrobots).
#
# Run:   ruby oracles/harness/webrobots/harness.rb
# Needs: apt-get install -y --no-install-recommends ruby-webrobots
#
# The body reaches the library the way Mechanize hands it over:
# Mechanize::HTTP::Agent#webrobots (mechanize 2.8.5, lib/mechanize/http/agent.rb
# line 1079) builds
#
#     WebRobots.new(@user_agent, :http_get => method(:get_robots))
#
# and get_robots (lines 1019-1037) returns `fetch(uri).body`: the body of a
# Mechanize::File read from a StringIO set to Encoding::BINARY (agent.rb line
# 922) or a binmode Tempfile (line 1276), so a String in ASCII-8BIT holding
# the raw bytes, never transcoded; a 4xx answer gives ''. Here http_get
# returns the request's body bytes as such a String, whatever robots.txt URL
# webrobots asks for. Mechanize leaves crawl_delay at its default :sleep;
# here it is :ignore, so a Crawl-delay line costs no time (it changes no
# answer: the handler only sleeps).
#
# Asks:
#   can_fetch    -> allowed?(url); then error(url) (a robots.txt parse error
#                   makes webrobots allow everything) goes into `explain`.
#   crawl_delay  -> crawl_delay(url) (0 when no Crawl-delay applies).
#   sitemaps     -> sitemaps(url).
#   request_rate -> unsupported (only the raw string via options(url)).
# webrobots wants a URL for every ask; crawl_delay and sitemaps come with an
# empty one, so they ask about DEFAULT_URL (the answer depends only on the
# body and the agent). A library exception is an `error` whose kind is the
# exception class.
#
# stdin is read in binary mode: a request is one JSON line followed by
# exactly body_len raw bytes. Every answer is one JSON line on stdout.

require 'json'

NAME = 'webrobots'
DEBIAN_PACKAGE = 'ruby-webrobots'
FIX = 'apt-get install -y --no-install-recommends ruby-webrobots'
DEFAULT_URL = 'http://example.test/'
I64 = (-(2**63)...(2**63)).freeze

$stdin.binmode
$stdout.binmode
$stdout.sync = true

def send_message(message)
  $stdout.write(JSON.generate(message) + "\n")
end

# A string JSON can carry: valid UTF-8, each invalid byte sequence replaced
# by U+FFFD (the same replacement as Rust's String::from_utf8_lossy).
def clean_text(text)
  s = text.to_s
  s = if [Encoding::UTF_8, Encoding::ASCII_8BIT, Encoding::US_ASCII].include?(s.encoding)
        s.dup.force_encoding(Encoding::UTF_8)
      else
        s.encode(Encoding::UTF_8, invalid: :replace, undef: :replace)
      end
  s.valid_encoding? ? s : s.scrub("\uFFFD")
end

def unavailable(reason)
  send_message({ v: 2, unavailable: { oracle: NAME, reason: clean_text(reason), fix: FIX } })
  exit 0
end

# Output of a command run without a shell, or nil if it failed.
def command_output(*argv)
  out = IO.popen(argv, err: File::NULL, &:read)
  $?.success? ? out : nil
rescue SystemCallError
  nil
end

# ---------------------------------------------------------------------------
# Loading and provenance

begin
  require 'webrobots'
rescue LoadError => e
  unavailable("cannot load webrobots: #{e.message}")
end

# The greeting names the Debian package, so the file really loaded must be
# that package's (a gem installed elsewhere would be another copy).
debian_version = command_output('dpkg-query', '-W', '-f=${Version}', DEBIAN_PACKAGE)
unavailable("dpkg-query does not know #{DEBIAN_PACKAGE}") if debian_version.nil? || debian_version.empty?
loaded = $LOADED_FEATURES.find { |f| File.basename(f) == 'webrobots.rb' }
owned = (command_output('dpkg-query', '-L', DEBIAN_PACKAGE) || '').split("\n")
unless loaded && owned.include?(File.realpath(loaded))
  unavailable("webrobots was loaded from #{loaded.inspect}, which #{DEBIAN_PACKAGE} does not own")
end

library_version = Webrobots::VERSION
begin
  spec_version = Gem::Specification.find_by_name('webrobots').version.to_s
  if spec_version != library_version
    warn "#{NAME}: gem spec says #{spec_version}, Webrobots::VERSION says #{library_version}"
  end
rescue StandardError, LoadError
  # No gem spec: Webrobots::VERSION is the identity.
end
racc = defined?(Racc::Parser::Racc_Runtime_Version) ? Racc::Parser::Racc_Runtime_Version : '?'

send_message({
  v: 2,
  hello: {
    name: NAME,
    library: 'webrobots',
    version: library_version,
    language: 'ruby',
    runtime: { name: 'ruby', version: RUBY_VERSION },
    provenance: { registry: 'debian', package: DEBIAN_PACKAGE, version: debian_version },
    capabilities: { can_fetch: true, crawl_delay: true, request_rate: false, sitemaps: true,
                    http_fetch: false },
    feeding: 'as Mechanize 2.8.5 (http/agent.rb webrobots, get_robots): WebRobots.new(agent, ' \
             'http_get: ->(uri) { body }, crawl_delay: :ignore) with body the raw bytes as an ' \
             "ASCII-8BIT String (racc runtime #{racc}); one WebRobots per agent per request; " \
             "crawl_delay and sitemaps with an empty url ask about #{DEFAULT_URL}"
  }
})

# ---------------------------------------------------------------------------
# Answers

def error_answer(exception)
  { outcome: 'error', kind: clean_text(exception.class.name), message: clean_text(exception.message) }
end

# error(url) as a note for `explain`: empty when robots.txt parsed cleanly.
def error_note(robots, url)
  error = robots.error(url)
  return '' if error.nil?

  "robots.txt error (#{error.class.name}): #{error}; webrobots then allows everything"
rescue StandardError, SystemStackError => e
  "error(url) raised #{e.class.name}: #{e.message}"
end

def number_answer(value)
  case value
  when nil
    { outcome: 'value', value: { type: 'none' } }
  when Integer
    if I64.cover?(value)
      { outcome: 'value', value: { type: 'int', value: value } }
    else
      # The protocol's int is an i64: show the float a user comparing
      # numbers would see, and say so.
      { outcome: 'value', value: { type: 'float', value: value.to_f },
        explain: "int #{value} does not fit i64; shown as float" }
    end
  when Float
    if value.finite?
      { outcome: 'value', value: { type: 'float', value: value } }
    else
      { outcome: 'error', kind: 'repdiff.Unrepresentable', message: "crawl delay #{value} is not finite" }
    end
  else
    { outcome: 'error', kind: 'repdiff.UnexpectedType', message: clean_text("#{value.class} #{value.inspect}") }
  end
end

def list_answer(items)
  strings = items.map { |s| clean_text(s) }
  answer = { outcome: 'value', value: { type: 'list', value: strings } }
  lossy = items.zip(strings).any? { |raw, shown| raw.b != shown.b }
  answer[:explain] = 'some sitemap bytes are not UTF-8: shown with U+FFFD' if lossy
  answer
end

# `explain`: the request's (docs/protocol.md); false when the parent will not
# read the account (the census), so the second lookup it needs is skipped.
def answer(robots, query, explain)
  ask = query['ask'].to_s
  url = query['url'].to_s
  result =
    case ask
    when 'can_fetch'
      robots.allowed?(url) ? { outcome: 'allowed' } : { outcome: 'disallowed' }
    when 'crawl_delay'
      url = DEFAULT_URL if url.empty?
      number_answer(robots.crawl_delay(url))
    when 'sitemaps'
      url = DEFAULT_URL if url.empty?
      list_answer(robots.sitemaps(url))
    else
      return { outcome: 'unsupported', reason: "webrobots has no #{ask} API" }
    end
  return result unless explain

  note = error_note(robots, url)
  result[:explain] = [result[:explain], note].compact.reject(&:empty?).join('; ') unless note.empty?
  result[:explain] = clean_text(result[:explain]) if result[:explain]
  result
rescue StandardError, SystemStackError => e
  error_answer(e)
end

def run_case(body, queries, explain)
  body = body.b # ASCII-8BIT, as Mechanize's get_robots returns it
  per_agent = {}
  queries.map do |query|
    agent = query['agent'].to_s
    robots = per_agent[agent] ||=
      WebRobots.new(agent, http_get: ->(_uri) { body.dup }, crawl_delay: :ignore)
    answer(robots, query, explain)
  end
end

# Read exactly len bytes from stdin (one request's body).
def read_body(len)
  return ''.b if len.zero?

  body = $stdin.read(len)
  raise 'stdin closed inside a body' if body.nil? || body.bytesize != len

  body
end

while (line = $stdin.gets)
  next if line.strip.empty?

  request = JSON.parse(line)
  queries = request['queries'] || []
  answers =
    if request['op'] == 'run'
      run_case(read_body(request['body_len'].to_i), queries, request['explain'] != false)
    else
      # `fetch` is never sent: the greeting does not announce http_fetch.
      queries.map { { outcome: 'unsupported', reason: 'no HTTP fetcher in this harness' } }
    end
  send_message({ answers: answers })
end
