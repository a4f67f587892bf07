#!/usr/bin/perl
# Direct call of WWW::RobotRules, the reference for the fidelity test of
# oracles/harness/www-robotrules/harness.pl. Shares no code with the harness.
#
# stdin:  one JSON object a line, {"body_b64": "...", "queries": [{"ask", "agent", "url"}, ...]}
# stdout: one JSON line per input, {"answers": [...]}, answers encoded as in
#         docs/protocol.md (no `explain`).
#
# The library is called the way its documentation shows (new, parse, allowed),
# with the content LWP::RobotUA 6.68 would give parse(): the decoded content
# of a 200 text/plain response, or "" when no line starts with "Disallow:"
# (LWP/RobotUA.pm lines 133-137), and with RobotUA's order of calls: allowed()
# first, robots.txt parsed only when it returns -1 (lines 117-141).

use strict;
use warnings;

use HTTP::Response;
use JSON::PP;
use MIME::Base64 qw(decode_base64);
use URI;
use WWW::RobotRules;

binmode STDIN;
binmode STDOUT;
$| = 1;
my $json = JSON::PP->new->utf8->canonical;

while (my $line = <STDIN>) {
    next unless $line =~ /\S/;
    my $input = $json->decode($line);
    my $body = decode_base64($input->{body_b64});

    # What LWP::RobotUA hands to parse() for this body.
    my $response = HTTP::Response->new(200, 'OK', ['Content-Type' => 'text/plain'], $body);
    my $text = $response->decoded_content;
    $text = '' unless $text && $text =~ /^\s*Disallow\s*:/mi;

    my @answers;
    for my $query (@{$input->{queries}}) {
        if ($query->{ask} ne 'can_fetch') {
            push @answers, {outcome => 'unsupported', reason => "no $query->{ask} in WWW::RobotRules"};
            next;
        }
        my $verdict = eval {
            my $url = $query->{url};
            my $rules = WWW::RobotRules->new($query->{agent});
            my $allowed = $rules->allowed($url);
            if ($allowed < 0) {
                # The site's robots.txt: /robots.txt resolved against the URL.
                my $robots_url = URI->new_abs('/robots.txt', URI->new($url));
                $rules->parse($robots_url, $text, $response->fresh_until);
                $allowed = $rules->allowed($url);
            }
            $allowed ? 'allowed' : 'disallowed';
        };
        if (defined $verdict) {
            push @answers, {outcome => $verdict};
        }
        else {
            my $message = "$@";
            $message =~ s/\s+\z//;
            push @answers, {outcome => 'error', kind => (ref($@) || 'die'), message => $message};
        }
    }
    print $json->encode({answers => \@answers}), "\n";
}
