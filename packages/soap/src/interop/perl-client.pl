# Calls every operation of the interop probe with Perl SOAP::Lite, in WSDL mode
# (SOAP::Lite->service) or with the raw call API (proxy + uri + call, arguments by position, as
# SOAP::Lite names them c-gensymN), and prints what it decoded as one JSON object for
# perl-client.test.ts to compare. Usage: perl perl-client.pl wsdl|raw <endpoint-url>
use strict;
use warnings;
use utf8;
use JSON::PP;
use SOAP::Lite;

my ($mode, $url) = @ARGV;
my $text = "Grüße, 東京, emoji 😀";
my $json = JSON::PP->new->canonical->utf8;
my $last_fault;

my $client;
if ($mode eq 'wsdl') {
    $client = SOAP::Lite->service("$url?wsdl");
} else {
    $client = SOAP::Lite->proxy($url)->uri('http://webservices');
}
# SOAP::Lite hands a fault to on_fault and returns undef from the call; keep it for the report.
$client->on_fault(sub {
    my ($soap, $res) = @_;
    $last_fault = ref $res ? { code => $res->faultcode, string => $res->faultstring }
                           : { code => 'transport', string => $soap->transport->status };
    return ref $res ? $res : undef;
});

sub call {
    my ($name, @args) = @_;
    undef $last_fault;
    if ($mode eq 'wsdl') {
        my $result = $client->$name(@args);
        return $last_fault ? undef : $result;
    }
    my $som = $client->call($name => @args);
    return $som && !$som->fault ? $som->result : undef;
}

sub bean {
    my ($b) = @_;
    die "no QueryBean: " . ($last_fault ? $last_fault->{string} : 'nothing decoded') . "\n" unless ref $b;
    return { columns => [@{ $b->{columnList} }], rows => [map { [@$_] } @{ $b->{data} || [] }] };
}

sub fault {
    my ($name, @args) = @_;
    call($name, @args);
    return $last_fault;
}

my %out = (
    echo     => bean(call('echoArguments', 2.5, $text, '2024-01-02T03:04:05Z')),
    echoNull => bean(call('echoArguments', -1, '', undef)),
    samples  => bean(call('getSamples')),
    nothing  => bean(call('getNothing', 0)),
    fault    => fault('failWith', 'because'),
    crash    => fault('crash'),
);
print $json->encode(\%out), "\n";
