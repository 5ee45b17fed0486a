// PHP's SoapClient, in WSDL mode against the served WSDL, calls all 16 operations of the running
// service over a real SQLite corpus; PHP's own decoding is compared with what the corpus holds.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { missingTool, toolAvailable } from "../../test-support/external-tool.js";
import {
  type Fixture,
  fixtureNow,
  hour,
  type RunningService,
  seedFixture,
  startTestService,
} from "../../test-support/service-fixture.js";

const run = promisify(execFile);
const client = fileURLToPath(new URL("./feed-php-client.php", import.meta.url));

let service: RunningService;
let fx: Fixture;
before(async () => {
  service = await startTestService();
  fx = await seedFixture(service.store);
});
after(() => service.close());

type Bean = { columns: string[]; count: number; first: unknown[] | null };

test("PHP SoapClient calls all 16 operations and reads typed rows and the typed fault", async (t) => {
  if (!(await toolAvailable("php", ["-r", "echo class_exists('SoapClient') ? 'soap' : 'none';"], /soap/))) {
    missingTool(t, "php with the soap extension", "Debian php8.2-cli and php8.2-soap");
    return;
  }
  const ids = {
    categoryId: fx.categories.apple,
    feedId: fx.feeds.flexWeekly,
    smartCategoryKey: fx.smart.key,
    languageId: fx.languages.fr,
    since: new Date(fixtureNow - 1.5 * hour).toISOString(),
  };
  const { stdout } = await run(
    "php",
    [client, `${service.baseUrl}/webservices/FeedAggregator?wsdl`, JSON.stringify(ids)],
    {
      timeout: 60_000,
    },
  );
  const out = JSON.parse(stdout) as Record<string, Bean> & { fault: { code: string; string: string } };
  assert.equal(Object.keys(out).length, 17);
  const post = [
    "postId",
    "postTitle",
    "postLink",
    "postExcerpt",
    "postDate",
    "feedId",
    "feedName",
    "categoryId",
    "categoryName",
    "languageId",
    "clicks",
    "trackingLink",
  ];
  assert.deepEqual(out.getMostRecentPosts.columns, post);
  // languageIds "1, 2": English (1) and whatever has id 2; b2/a1 lead either way.
  const recent = out.getMostRecentPosts.first!;
  assert.ok(Number.isInteger(recent[0]), `postId decoded as ${typeof recent[0]}`);
  assert.equal(recent[4], new Date(fixtureNow - hour).toISOString());
  assert.equal(recent[11], `${service.baseUrl}/click/${recent[0]}`);
  assert.deepEqual(out.search.columns, [...post, "score"]);
  assert.deepEqual(out.getPostsByCategory.count, 2);
  assert.equal(out.getPostsByCategory.first![0], fx.posts.b2);
  assert.equal(out.getPostsByFeed.first![0], fx.posts.a1);
  assert.equal(out.getPostsBySmartCategory.count, 2);
  assert.deepEqual(out.getMostPopularPosts.columns, [...post, "periodClicks"]);
  assert.equal(out.getMostPopularPosts.first![0], fx.posts.a1);
  assert.equal(out.getMostPopularPosts.first![12], 3);
  assert.deepEqual(out.getCategories.first, [fx.categories.apple, "Apple", 2]);
  assert.equal(out.getSmartCategories.first![1], fx.smart.key);
  assert.deepEqual(out.getLanguages.first, [1, "English", "en"]);
  assert.equal(out.getMostPopularFeeds.first![0], fx.feeds.flexWeekly);
  assert.equal(out.getMostProlificFeeds.first![0], fx.feeds.airNotes);
  assert.equal(out.getFeeds.count, 4);
  assert.equal(out.getFeeds.first![1], "air notes");
  // siteUrl and feedDescription are nil cells: PHP sees nulls in place, the row keeps its length.
  assert.equal(out.getFeeds.first!.length, 10);
  assert.equal(out.getFeeds.first![3], null);
  assert.equal(out.getFeedsByCategory.count, 2);
  assert.equal(out.getSearchHistory.first![0], "flex");
  assert.equal(out.search.count, 3);
  assert.equal(out.search.first![0], fx.posts.a1);
  assert.equal(out.getFeedsByLanguage.first![1], "air notes");
  assert.equal(out.getAggregateLanguageData.first![2], "en");
  assert.equal(out.fault.code, "soapenv:Server.userException");
  assert.equal(
    out.fault.string,
    "ComponentInvocationException: The limit argument must be a whole number from 0 to 1000; got -1.",
  );
});
