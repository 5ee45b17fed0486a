<?php
// Calls every operation of the interop probe with PHP's SoapClient in WSDL mode and prints what
// PHP decoded as one JSON object, for interop-php.test.ts to compare. Usage: php php-client.php <wsdl-url>
$client = new SoapClient($argv[1], ['cache_wsdl' => WSDL_CACHE_NONE, 'exceptions' => true]);
$bean = function ($b) {
    return ['columns' => $b->columnList, 'rows' => $b->data];
};
$fault = function (callable $call) {
    try {
        $call();
        return null;
    } catch (SoapFault $f) {
        return ['code' => $f->faultcode, 'string' => $f->faultstring];
    }
};
$out = [];
// How PHP read the WSDL: parameter types as declared, QueryBean as the return type.
$out['functions'] = $client->__getFunctions();
$out['echo'] = $bean($client->echoArguments(2.5, "Grüße 東京😀", "2024-01-02T03:04:05Z"));
$out['echoNull'] = $bean($client->echoArguments(-1, "", null));
$out['samples'] = $bean($client->getSamples());
$out['nothing'] = $bean($client->getNothing(0));
$out['fault'] = $fault(function () use ($client) { $client->failWith("because"); });
$out['crash'] = $fault(function () use ($client) { $client->crash(); });
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), "\n";
