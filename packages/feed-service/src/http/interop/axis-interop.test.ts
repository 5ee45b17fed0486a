// Apache Axis 1.4: WSDL2Java on the WSDL the running service serves, javac, then the generated
// stubs call all 16 operations over a real SQLite corpus and the typed fault.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
const client = fileURLToPath(new URL("./FeedAggregatorClient.java", import.meta.url));
// Debian's libaxis-java and its dependencies.
const classpath = [
  "axis.jar",
  "jaxrpc.jar",
  "saaj.jar",
  "wsdl4j.jar",
  "commons-discovery.jar",
  "commons-logging.jar",
]
  .map((jar) => join("/usr/share/java", jar))
  .join(":");

let service: RunningService;
let fx: Fixture;
before(async () => {
  service = await startTestService();
  fx = await seedFixture(service.store);
});
after(() => service.close());

test("Axis 1.4 stubs generated from the served WSDL call all 16 operations", async (t) => {
  const haveJdk = (await toolAvailable("java", ["-version"])) && (await toolAvailable("javac", ["-version"]));
  if (!haveJdk || !classpath.split(":").every((jar) => existsSync(jar))) {
    missingTool(
      t,
      "a JDK (java, javac) and Apache Axis 1.4 jars in /usr/share/java",
      "Debian default-jdk-headless and libaxis-java",
    );
    return;
  }
  const work = await mkdtemp(join(tmpdir(), "feed-axis-"));
  try {
    const wsdlUrl = `${service.baseUrl}/webservices/FeedAggregator?wsdl`;
    await run(
      "java",
      ["-cp", classpath, "org.apache.axis.wsdl.WSDL2Java", "-o", join(work, "src"), wsdlUrl],
      { timeout: 120_000 },
    );
    const generated = (await readdir(join(work, "src"), { recursive: true }))
      .filter((f) => f.endsWith(".java"))
      .map((f) => join(work, "src", f));
    await run(
      "javac",
      ["-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", join(work, "classes"), ...generated, client],
      {
        timeout: 120_000,
      },
    );
    const since = new Date(fixtureNow - 1.5 * hour).toISOString();
    const args = [
      fx.categories.apple,
      fx.feeds.flexWeekly,
      fx.smart.id,
      fx.smart.key,
      fx.languages.fr,
      since,
    ].map(String);
    const { stdout } = await run(
      "java",
      ["-cp", `${classpath}:${join(work, "classes")}`, "FeedAggregatorClient", ...args],
      {
        timeout: 120_000,
      },
    );
    const lines = new Map(
      stdout
        .trim()
        .split("\n")
        .map((line) => {
          const [op, ...rest] = line.split("\t");
          return [op, rest] as const;
        }),
    );
    assert.equal(lines.size, 17, stdout);
    const post =
      "postId,postTitle,postLink,postExcerpt,postDate,feedId,feedName,categoryId,categoryName,languageId,clicks,trackingLink";
    const [columns, count, first] = lines.get("getMostRecentPosts")!;
    assert.equal(columns, post);
    assert.ok(Number(count) >= 2);
    // Cells arrive typed by column: Integer ids, String text, Calendar instants.
    const cells = first.split(" | ");
    assert.match(cells[0], /^Integer:\d+$/);
    assert.equal(cells[1].split(":")[0], "String");
    assert.equal(cells[4], `Calendar:${fixtureNow - hour}`);
    assert.match(cells[11], new RegExp(`^String:${service.baseUrl}/click/\\d+$`));
    // sincepost sent by Axis as an xsd:dateTime: only posts after it.
    assert.deepEqual(lines.get("getPostsByCategory")!.slice(0, 2), [post, "2"]);
    assert.match(lines.get("getPostsByCategory")![2], new RegExp(`^Integer:${fx.posts.b2} `));
    assert.match(lines.get("getPostsByFeed")![2], new RegExp(`^Integer:${fx.posts.a1} `));
    assert.equal(lines.get("getPostsBySmartCategory")![1], "2");
    assert.equal(lines.get("search")![0], `${post},score`);
    assert.match(lines.get("search")![2], / \| Double:[0-9.Ee-]+$/);
    assert.equal(lines.get("getMostPopularPosts")![0], `${post},periodClicks`);
    assert.match(lines.get("getMostPopularPosts")![2], / \| Integer:3$/);
    assert.equal(lines.get("getCategories")![2], `Integer:${fx.categories.apple} | String:Apple | Integer:2`);
    assert.equal(
      lines.get("getSmartCategories")![2],
      `Integer:${fx.smart.id} | String:${fx.smart.key} | String:Flex stuff | String:flex -old`,
    );
    assert.equal(lines.get("getLanguages")![2], "Integer:1 | String:English | String:en");
    assert.match(
      lines.get("getMostPopularFeeds")![2],
      new RegExp(`^Integer:${fx.feeds.flexWeekly} .* \\| Integer:4$`),
    );
    assert.match(
      lines.get("getMostProlificFeeds")![2],
      new RegExp(`^Integer:${fx.feeds.airNotes} .* \\| Integer:2$`),
    );
    assert.equal(lines.get("getFeeds")![1], "4");
    assert.match(
      lines.get("getFeeds")![2],
      /^Integer:\d+ \| String:air notes \| String:https:\/\/air\.example\.org\/rss \| null \| null \| /,
    );
    assert.equal(lines.get("getFeedsByCategory")![1], "2");
    assert.match(
      lines.get("getSearchHistory")![2],
      new RegExp(`^String:flex \\| Integer:1 \\| Calendar:${fixtureNow}$`),
    );
    assert.match(lines.get("getFeedsByLanguage")![2], /String:air notes/);
    assert.match(lines.get("getAggregateLanguageData")![2], /^Integer:1 \| String:English \| String:en \| /);
    assert.deepEqual(lines.get("fault"), [
      "ComponentInvocationException",
      "ComponentInvocationException: The limit argument must be a whole number from 0 to 1000; got -1.",
    ]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
