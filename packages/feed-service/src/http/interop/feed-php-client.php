<?php
// Calls all 16 operations of a running feed service with PHP's SoapClient in WSDL mode and prints
// what PHP decoded as one JSON object (columns, row count and first row per operation), plus a
// fault probe. Usage: php feed-php-client.php <wsdl-url> <json with the ids to use>
$ids = json_decode($argv[2], true);
$client = new SoapClient($argv[1], ['cache_wsdl' => WSDL_CACHE_NONE, 'exceptions' => true]);
$bean = function ($b) {
    $rows = $b->data ?? [];
    return ['columns' => $b->columnList, 'count' => count($rows), 'first' => $rows[0] ?? null];
};
$out = [];
$out['search'] = $bean($client->search(5, 0, 'flex', 'date', ''));
$out['getMostRecentPosts'] = $bean($client->getMostRecentPosts(5, 0, '1, 2'));
$out['getPostsByCategory'] = $bean($client->getPostsByCategory(5, 0, $ids['categoryId'], '', $ids['since']));
$out['getPostsByFeed'] = $bean($client->getPostsByFeed(5, 0, $ids['feedId']));
$out['getPostsBySmartCategory'] = $bean($client->getPostsBySmartCategory(5, 0, 0, $ids['smartCategoryKey'], ''));
$out['getMostPopularPosts'] = $bean($client->getMostPopularPosts(30, 5, null));
$out['getCategories'] = $bean($client->getCategories());
$out['getSmartCategories'] = $bean($client->getSmartCategories());
$out['getLanguages'] = $bean($client->getLanguages());
$out['getMostPopularFeeds'] = $bean($client->getMostPopularFeeds(30, 5));
$out['getMostProlificFeeds'] = $bean($client->getMostProlificFeeds(0.5, 5));
$out['getFeeds'] = $bean($client->getFeeds());
$out['getFeedsByCategory'] = $bean($client->getFeedsByCategory($ids['categoryId']));
$out['getSearchHistory'] = $bean($client->getSearchHistory());
$out['getFeedsByLanguage'] = $bean($client->getFeedsByLanguage($ids['languageId']));
$out['getAggregateLanguageData'] = $bean($client->getAggregateLanguageData());
try {
    $client->getMostRecentPosts(-1, 0, '');
    $out['fault'] = null;
} catch (SoapFault $f) {
    $out['fault'] = ['code' => $f->faultcode, 'string' => $f->faultstring];
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), "\n";
