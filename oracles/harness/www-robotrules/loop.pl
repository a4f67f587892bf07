#!/usr/bin/perl
# The parser's own speed: a direct loop of WWW::RobotRules over a census's
# exact files and questions (`repdiff census queries`), for `cargo xtask
# bench`'s direct row. Every file is read first; then only the library's
# calls are timed with the process's CPU clock, fed as harness.pl feeds it
# (as LWP::RobotUA 6.68 does: the body as a 200 text/plain HTTP::Response,
# its decoded_content, "" unless a line starts with Disallow:, parsed into a
# WWW::RobotRules->new(agent) once per robots URL and agent within a file).
#
# Run:    perl loop.pl QUERIES.jsonl
# Prints: {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
#         in file order: a allowed, d disallowed, e a die.
use strict;
use warnings;
use JSON::PP;
use HTTP::Response;
use URI;
use WWW::RobotRules;
use Time::HiRes qw(clock_gettime CLOCK_PROCESS_CPUTIME_ID);

my $json = JSON::PP->new;
my @files;
open my $in, '<', $ARGV[0] or die "$ARGV[0]: $!";
while (my $line = <$in>) {
    my $rec = $json->decode($line);
    push @files, [pack('H*', $rec->{body_hex}), [map { [$_->{agent}, $_->{url}] } @{$rec->{queries}}]];
}

my $start = clock_gettime(CLOCK_PROCESS_CPUTIME_ID);
my $verdicts = '';
for my $f (@files) {
    my ($body, $queries) = @$f;
    my $res = HTTP::Response->new(200, 'OK', ['Content-Type' => 'text/plain'], $body);
    my $content = '';
    my $fed = eval {
        if ($res->is_success && $res->content_is_text) {
            $content = $res->decoded_content;
            $content = '' unless $content && $content =~ /^\s*Disallow\s*:/mi;
        }
        1;
    };
    my %parsed;
    for my $q (@$queries) {
        my ($agent, $url) = @$q;
        my $allowed;
        my $ok = $fed && eval {
            my $uri = URI->new($url);
            my $rules = WWW::RobotRules->new($agent);
            $allowed = $rules->allowed($uri);
            if ($allowed < 0) {
                my $robot_url = $uri->clone;
                $robot_url->path('robots.txt');
                $robot_url->query(undef);
                my $key = "$robot_url\0$agent";
                $rules = $parsed{$key} //= do {
                    $rules->parse($robot_url, '');
                    $rules->parse($robot_url, $content, $res->fresh_until);
                    $rules;
                };
                $allowed = $rules->allowed($uri);
            }
            1;
        };
        $verdicts .= !$ok ? 'e' : $allowed ? 'a' : 'd';
    }
}
my $cpu = clock_gettime(CLOCK_PROCESS_CPUTIME_ID) - $start;
print $json->encode({cpu_seconds => $cpu + 0, verdicts => $verdicts}), "\n";
