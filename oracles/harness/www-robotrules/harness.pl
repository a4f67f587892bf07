#!/usr/bin/perl
# repdiff oracle harness (protocol v2, docs/protocol.md) for Perl's
# WWW::RobotRules, the robots.txt parser behind LWP::RobotUA, as Debian ships
# it (libwww-robotrules-perl).
#
# Run:   perl oracles/harness/www-robotrules/harness.pl
# Needs: apt-get install libwww-robotrules-perl libwww-perl
#        (libwww-perl brings HTTP::Response, whose decoded_content() is part
#        of the feeding below).
#
# The body reaches the library the way LWP::RobotUA hands it over: see
# robotua_content() and can_fetch(). Only can_fetch is answered: the module
# has no crawl-delay, request-rate or sitemap API (its only public methods
# are new, parse, allowed, agent and the visit bookkeeping).
#
# stdin is read in binary mode: a request is one JSON line followed by
# exactly body_len raw bytes. Every answer is one JSON line on stdout.

use strict;
use warnings;

use Cwd ();
use JSON::PP ();

my $NAME = 'www-robotrules';
my $DEBIAN_PACKAGE = 'libwww-robotrules-perl';
my $FIX = "apt-get install -y $DEBIAN_PACKAGE libwww-perl";

binmode STDIN;
binmode STDOUT;
STDOUT->autoflush(1);

# utf8: Perl character strings in, UTF-8 bytes out. canonical: stable key
# order, so two runs print the same bytes.
# JSON::XS (Debian libjson-xs-perl, installed by setup) reads and writes
# the protocol's JSON; JSON::PP, pure Perl, is the fallback when it is
# missing: it gives the same data, about ten times slower (4 ms to read a
# 100-query request). Neither touches what reaches WWW::RobotRules.
my $JSON = (eval { require JSON::XS; 1 } ? JSON::XS->new : JSON::PP->new)->utf8->canonical;

sub send_message {
    my ($message) = @_;
    print STDOUT $JSON->encode($message), "\n";
}

# A message the parent can read: valid Unicode scalar values only (a Perl
# string may hold surrogates or code points above U+10FFFF, which UTF-8 JSON
# cannot carry), without the trailing newline of a die message.
sub clean_text {
    my ($text) = @_;
    $text = '' unless defined $text;
    $text = "$text";
    $text =~ s/[\x{D800}-\x{DFFF}]/\x{FFFD}/g;
    $text =~ s/[^\x{0}-\x{10FFFF}]/\x{FFFD}/g;
    $text =~ s/\s+\z//;
    return $text;
}

sub unavailable {
    my ($reason) = @_;
    send_message({v => 2, unavailable => {oracle => $NAME, reason => clean_text($reason), fix => $FIX}});
    exit 0;
}

# ---------------------------------------------------------------------------
# Loading and provenance

# Output of a command run without a shell, or undef if it failed.
sub command_output {
    my @argv = @_;
    open(my $fh, '-|', @argv) or return undef;
    local $/;
    my $out = <$fh>;
    close($fh) or return undef;
    return $out;
}

eval { require WWW::RobotRules; require HTTP::Response; require HTTP::Message; require URI; 1 }
    or unavailable("cannot load WWW::RobotRules / HTTP::Response: $@");

# The greeting names the Debian package, so the module really loaded must be
# that package's file (a CPAN copy earlier in @INC would be another parser).
my $debian_version = command_output('dpkg-query', '-W', '-f=${Version}', $DEBIAN_PACKAGE);
unavailable("dpkg-query does not know $DEBIAN_PACKAGE")
    unless defined $debian_version && length $debian_version;
my $loaded = Cwd::abs_path($INC{'WWW/RobotRules.pm'}) // $INC{'WWW/RobotRules.pm'};
my $files = command_output('dpkg-query', '-L', $DEBIAN_PACKAGE) // '';
my %owned = map { (Cwd::abs_path($_) // $_) => 1 } grep { length } split /\n/, $files;
unavailable("WWW::RobotRules was loaded from $loaded, which $DEBIAN_PACKAGE does not own")
    unless $owned{$loaded};

my $library_version = "$WWW::RobotRules::VERSION";
my $perl_version = sprintf('%vd', $^V);

send_message({
    v     => 2,
    hello => {
        name         => $NAME,
        library      => 'WWW::RobotRules',
        version      => $library_version,
        language     => 'perl',
        runtime      => {name => 'perl', version => $perl_version},
        provenance   => {registry => 'debian', package => $DEBIAN_PACKAGE, version => $debian_version},
        capabilities => {
            can_fetch    => JSON::PP::true,
            crawl_delay  => JSON::PP::false,
            request_rate => JSON::PP::false,
            sitemaps     => JSON::PP::false,
            http_fetch   => JSON::PP::false,
        },
        feeding => 'as LWP::RobotUA 6.68 simple_request: the body as a 200 text/plain '
            . "HTTP::Response (HTTP::Message $HTTP::Message::VERSION), its decoded_content, "
            . 'replaced by "" unless it matches /^\s*Disallow\s*:/mi, parsed with '
            . 'parse($uri->clone with path robots.txt and no query, content, fresh_until) '
            . 'into a new WWW::RobotRules->new(agent) per query (reused for the same robots URL '
            . 'and agent within a request); agent and URL as Perl character strings',
    },
});

# ---------------------------------------------------------------------------
# The feeding: what LWP::RobotUA passes to $rules->parse

# The robots.txt response as LWP would hand it back. repdiff's HTTP server
# (xtask/src/http.rs) serves a body with status 200 and "Content-Type:
# text/plain" and no charset, so that is the response built here.
sub robots_response {
    my ($body) = @_;
    return HTTP::Response->new(200, 'OK', ['Content-Type' => 'text/plain'], $body);
}

# LWP::RobotUA.pm 6.68 (/usr/share/perl5/LWP/RobotUA.pm), lines 133-137:
#
#     my $content = "";
#     if ($robot_res->is_success && $robot_res->content_is_text) {
#         $content = $robot_res->decoded_content;
#         $content = "" unless $content && $content =~ /^\s*Disallow\s*:/mi;
#     }
#
# decoded_content (HTTP::Message) picks the charset from a BOM, else US-ASCII
# for pure ASCII, else UTF-8 when the bytes are valid UTF-8, else ISO-8859-1;
# it keeps a BOM as U+FEFF and returns undef when decoding fails. A body with
# no line starting with "Disallow:" is parsed as "" (everything allowed).
# Returns the content and a short account of it for `explain`.
sub robotua_content {
    my ($res, $want_account) = @_;
    my $content = "";
    if ($res->is_success && $res->content_is_text) {
        $content = $res->decoded_content;
        $content = "" unless $content && $content =~ /^\s*Disallow\s*:/mi;
    }
    # The account decodes the body a second time: skipped when the parent
    # asked for no `explain` (the fuzz loop), since that is half the work.
    return ($content, undef) unless $want_account;
    my $decoded = $res->decoded_content;
    my $account;
    if (!defined $decoded) {
        $account = 'decoded_content failed, parse() got ""';
    }
    elsif (length $content) {
        $account = sprintf('parse() got %d chars decoded as %s', length $content, $res->content_charset // '?');
    }
    else {
        $account = 'no line matches /^\s*Disallow\s*:/mi, parse() got ""';
    }
    return ($content, $account);
}

# One can_fetch, as LWP::RobotUA.pm 6.68 simple_request does it for a robot
# that has not visited the host yet (lines 117-141):
#
#     my $allowed = $self->{'rules'}->allowed($request->uri);
#     if ($allowed < 0) {
#         my $robot_url = $request->uri->clone;
#         $robot_url->path("robots.txt");
#         $robot_url->query(undef);
#         $self->{'rules'}->parse($robot_url, "");
#         ... fetch $robot_url: $robot_res, $fresh_until, $content (above) ...
#         $self->{'rules'}->parse($robot_url, $content, $fresh_until);
#         $allowed = $self->{'rules'}->allowed($request->uri);
#     }
#     unless ($allowed) { ... 403 Forbidden by robots.txt ... }
#
# The robots URL is the query URL with path "/robots.txt" and no query: its
# origin plus /robots.txt (userinfo and fragment kept, which parse() never
# looks at: it keys the rules by host:port). `allowed` returns 1, 0, or -1
# (no fresh rules for that host:port); RobotUA treats -1 as allowed, and so
# does any `if ($rules->allowed($url))`.
#
# The URL reaches allowed() as HTTP::Request->new stores it: URI->new($url).
#
# Each query starts from a new WWW::RobotRules->new($agent), a robot that has
# seen nothing. The object parsed for one (robots URL, agent) is kept in
# %$parsed for the rest of the request only (parsing a big body is slow), as
# the same robot asking again about that host would: its rules are the same.
# Returns (allowed's value, whether robots.txt was consulted).
sub can_fetch {
    my ($res, $content, $parsed, $agent, $url) = @_;
    my $uri = URI->new($url);
    my $rules = WWW::RobotRules->new($agent);
    my $allowed = $rules->allowed($uri);
    return ($allowed, 0) unless $allowed < 0;
    my $robot_url = $uri->clone;
    $robot_url->path("robots.txt");
    $robot_url->query(undef);
    my $key = "$robot_url\0$agent";
    if ($parsed->{$key}) {
        $rules = $parsed->{$key};
    }
    else {
        $rules->parse($robot_url, "");
        my $fresh_until = $res->fresh_until;
        $rules->parse($robot_url, $content, $fresh_until);
        $parsed->{$key} = $rules;
    }
    return ($rules->allowed($uri), 1);
}

# ---------------------------------------------------------------------------
# Requests

sub error_answer {
    my ($e) = @_;
    my $kind = ref($e) || 'die';
    return {outcome => 'error', kind => clean_text($kind), message => clean_text($e)};
}

sub run_case {
    my ($body, $queries, $want_explain) = @_;
    my $res = robots_response($body);
    my ($content, $account);
    my $fed = eval { ($content, $account) = robotua_content($res, $want_explain); 1 };
    my $feed_error = $fed ? undef : $@;
    my %parsed;
    my @answers;
    for my $q (@$queries) {
        my $ask = $q->{ask} // '';
        if ($ask ne 'can_fetch') {
            push @answers, {outcome => 'unsupported',
                            reason => "WWW::RobotRules has no $ask API (only allowed())"};
            next;
        }
        if (defined $feed_error) {
            push @answers, error_answer($feed_error);
            next;
        }
        my ($allowed, $consulted);
        my $ok = eval {
            ($allowed, $consulted) = can_fetch($res, $content, \%parsed, $q->{agent} // '', $q->{url} // '');
            1;
        };
        if (!$ok) {
            push @answers, error_answer($@);
            next;
        }
        unless ($want_explain) {
            push @answers, {outcome => ($allowed ? 'allowed' : 'disallowed')};
            next;
        }
        my $shown = defined $allowed ? $allowed : 'undef';
        my $explain = "allowed() returned $shown";
        $explain .= ' (no fresh rules for this host:port; LWP::RobotUA lets it through)' if $shown eq '-1';
        $explain .= $consulted ? "; $account" : '; not an http(s) URL, robots.txt not consulted';
        push @answers, {outcome => ($allowed ? 'allowed' : 'disallowed'), explain => clean_text($explain)};
    }
    return \@answers;
}

# Read exactly $len bytes from STDIN (one request's body).
sub read_body {
    my ($len) = @_;
    my $body = '';
    while (length($body) < $len) {
        my $got = read(STDIN, $body, $len - length($body), length($body));
        die "read: $!\n" unless defined $got;
        die "stdin closed inside a body\n" if $got == 0;
    }
    return $body;
}

while (defined(my $line = <STDIN>)) {
    next if $line =~ /^\s*$/;
    my $request = $JSON->decode($line);
    my $queries = $request->{queries} || [];
    my $answers;
    if (($request->{op} // '') eq 'run') {
        my $body = read_body($request->{body_len} // 0);
        # docs/protocol.md: `explain: false` means the parent will not read it.
        my $want_explain = !(defined $request->{explain} && !$request->{explain});
        $answers = run_case($body, $queries, $want_explain);
    }
    else {
        # `fetch` is never sent: the greeting does not announce http_fetch.
        $answers = [map { {outcome => 'unsupported', reason => 'no HTTP fetcher in this harness'} } @$queries];
    }
    send_message({answers => $answers});
}
