// The built bin (`npx tsc -b` first) in temp folders: admin commands with tables and --json, exit
// codes (0 ok, 1 run time, 2 usage) with one-line reasons, env-var options, serve and start-demo.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../bin/feed-service.js", import.meta.url));
const folders: string[] = [];
after(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

function tempFolder(): string {
  const f = mkdtempSync(join(tmpdir(), "feed-service-cli-"));
  folders.push(f);
  return f;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

test("--help everywhere; usage errors exit 2 with one line on stderr", async () => {
  const top = await cli(["--help"]);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /^usage: feed-service /);
  // Independent runs go in parallel: each is a process start, and this machine is shared.
  const commands = ["serve", "demo", "start-demo", "feeds", "categories", "smart-categories", "languages"];
  const helps = await Promise.all(commands.map((c) => cli([c, "--help"])));
  for (const [i, r] of helps.entries()) {
    assert.equal(r.code, 0, commands[i]);
    assert.match(r.stdout, new RegExp(`usage: feed-service ${commands[i]}`));
  }
  assert.equal((await cli([])).code, 2);
  const unknown = await cli(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^feed-service: unknown command "frobnicate"[^\n]*\n$/);
  const badOption = await cli(["categories", "list", "--colour"]);
  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /--colour/);
  assert.equal(badOption.stderr.trim().split("\n").length, 1);
  const badPort = await cli(["serve", "--port", "99999"]);
  assert.equal(badPort.code, 2);
  assert.match(badPort.stderr, /--port must be a whole number from 0 to 65535; got "99999"/);
  const envPort = await cli(["serve"], { env: { FEED_SERVICE_PORT: "x" } });
  assert.equal(envPort.code, 2);
  const envBool = await cli(["serve", "--port", "0"], { env: { FEED_SERVICE_NO_INGEST: "maybe" } });
  assert.equal(envBool.code, 2);
  assert.match(envBool.stderr, /FEED_SERVICE_NO_INGEST must be 1, true, 0 or false; got "maybe"/);
  const zeroTimeout = await cli(["serve", "--query-timeout", "0"]);
  assert.equal(zeroTimeout.code, 2);
  assert.match(
    zeroTimeout.stderr,
    /--query-timeout must be a number of seconds above 0 and at most 3600 \(fractions allowed, e\.g\. 2\.5\); got "0"/,
  );
  const envTimeout = await cli(["serve"], { env: { FEED_SERVICE_QUERY_TIMEOUT: "ten" } });
  assert.equal(envTimeout.code, 2);
  assert.match(envTimeout.stderr, /--query-timeout must be a number of seconds[^\n]*got "ten"/);
  const noHeavy = await cli(["serve", "--heavy-queries", "0"]);
  assert.equal(noHeavy.code, 2);
  assert.match(noHeavy.stderr, /--heavy-queries must be a whole number from 1 to 64; got "0"/);
  const envHeavy = await cli(["serve"], { env: { FEED_SERVICE_HEAVY_QUERIES: "many" } });
  assert.equal(envHeavy.code, 2);
  assert.match(envHeavy.stderr, /--heavy-queries must be a whole number from 1 to 64; got "many"/);
  const blankName = await cli(["serve"], { env: { FEED_SERVICE_SITE_NAME: "  " } });
  assert.equal(blankName.code, 2);
  assert.match(
    blankName.stderr,
    /--site-name must be 1 to 100 characters of text without control characters; got " {2}"/,
  );
  const badGuess = await cli(["serve", "--detect-languages", "en,xx"]);
  assert.equal(badGuess.code, 2);
  assert.match(
    badGuess.stderr,
    /--detect-languages must be none or a comma-separated list of languages the detector knows \(af,am,[^)]*\); got "xx"/,
  );
  const envGuess = await cli(["ingest"], { env: { FEED_SERVICE_DETECT_LANGUAGES: "klingon" } });
  assert.equal(envGuess.code, 2);
  assert.match(envGuess.stderr, /--detect-languages must be[^\n]*got "klingon"/);
  const replica = await cli(["serve", "--database", join(tempFolder(), "a.db"), "--read-database", "x.db"]);
  assert.equal(replica.code, 2);
  assert.match(replica.stderr, /read database can only be given with a postgres:\/\/ database/);
});

test("from anywhere in the clone, npx feed-service runs this workspace's bin (as the README says)", async () => {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  for (const cwd of [root, join(root, "packages", "feed-service", "src")]) {
    // --no-install: the workspace's own link in node_modules/.bin, never a package from a registry.
    const r = await new Promise<Run>((resolve) => {
      execFile(
        "npx",
        ["--no-install", "feed-service", "--help"],
        { cwd, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    assert.equal(r.code, 0, `${cwd}: ${r.stderr}`);
    assert.match(r.stdout, /^usage: feed-service <command> \[options\]/, cwd);
  }
});

test("admin commands: categories, languages, smart categories, feeds — tables, --json, exit codes", async () => {
  const cwd = tempFolder();
  const db = ["--database", join(cwd, "admin.db")];
  const added = await cli(["categories", "add", "News", ...db]);
  assert.equal(added.code, 0, added.stderr);
  // The first command that writes creates the database, and says so once.
  assert.equal(added.stderr, `feed-service: created database ${join(cwd, "admin.db")}\n`);
  const categoryId = Number(added.stdout.trim());
  assert.ok(categoryId > 0);
  const dup = await cli(["categories", "add", "news", ...db]);
  assert.equal(dup.code, 1, dup.stdout);
  assert.equal(dup.stderr.trim().split("\n").length, 1);
  assert.doesNotMatch(dup.stderr, /created database/);
  const table = await cli(["categories", "list", ...db]);
  assert.match(table.stdout, /^categoryId\s+categoryName\s+feedCount\n/);
  assert.match(table.stdout, new RegExp(`${categoryId}\\s+News\\s+0`));
  const lang = await cli(["languages", "add", "pt-BR", "--json", ...db]);
  assert.equal(lang.code, 0, lang.stderr);
  const language = JSON.parse(lang.stdout);
  assert.equal(language.languageCode, "pt-BR");
  const feed = await cli([
    "feeds",
    "add",
    "https://news.example.org/rss",
    "--name",
    "Notícias",
    "--category",
    "news",
    "--language",
    "pt-br",
    "--json",
    // No network here: the feed cannot be fetched, and --force adds it all the same.
    "--force",
    ...db,
  ]);
  assert.equal(feed.code, 0, feed.stderr);
  const row = JSON.parse(feed.stdout);
  assert.equal(row.feedName, "Notícias");
  assert.equal(row.categoryId, categoryId);
  assert.equal(row.languageId, language.languageId);
  const plain = await cli(["feeds", "add", "https://other.example.org/feed", "--force", ...db]);
  assert.match(plain.stdout, /^\d+\n$/);
  const list = JSON.parse((await cli(["feeds", "list", "--json", ...db])).stdout);
  assert.deepEqual(list.map((f: { feedUrl: string }) => f.feedUrl).sort(), [
    "https://news.example.org/rss",
    "https://other.example.org/feed",
  ]);
  assert.equal((await cli(["feeds", "add", "ftp://x.example.org/", ...db])).code, 2);
  const noCategory = await cli([
    "feeds",
    "add",
    "https://x.example.org/",
    "--category",
    "Sports",
    "--force",
    ...db,
  ]);
  assert.equal(noCategory.code, 1);
  assert.match(noCategory.stderr, /No category is named "Sports"/);
  assert.equal((await cli(["feeds", "remove", String(row.feedId), ...db])).code, 0);
  const missing = await cli(["feeds", "remove", String(row.feedId), ...db]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, new RegExp(`No feed has id ${row.feedId}\\.`));
  assert.equal((await cli(["feeds", "remove", "abc", ...db])).code, 2);
  const smart = await cli(["smart-categories", "add", "Rust news", "--query", "rust -jobs", "--json", ...db]);
  assert.equal(smart.code, 0, smart.stderr);
  const s = JSON.parse(smart.stdout);
  assert.match(s.smartCategoryKey, /^[0-9a-f-]{36}$/);
  assert.match((await cli(["smart-categories", "list", ...db])).stdout, /Rust news\s+rust -jobs/);
  assert.equal((await cli(["smart-categories", "add", "K", "--query", "x", "--key", "nope", ...db])).code, 2);
  const badOperator = await cli(["smart-categories", "add", "K", "--query", "x after:yesterday", ...db]);
  assert.equal(badOperator.code, 2);
  assert.match(badOperator.stderr, /The search operator after:yesterday needs a UTC day written YYYY-MM-DD/);
  assert.equal((await cli(["smart-categories", "remove", String(s.smartCategoryId), ...db])).code, 0);
  assert.equal((await cli(["categories", "remove", String(categoryId), ...db])).code, 0);
  // The database option also comes from the environment.
  const viaEnv = await cli(["categories", "list", "--json"], {
    env: { FEED_SERVICE_DATABASE: join(cwd, "admin.db") },
  });
  assert.deepEqual(JSON.parse(viaEnv.stdout), []);
});

test("the lists come by name in the Unicode collation, as every other adapter gives them", async () => {
  const db = ["--database", join(tempFolder(), "names.db")];
  // Code points would put "Sécurité" after "Sviluppo" and "éclair" after "Zebra".
  const names = ["Sviluppo Web Italia", "Zebra", "Sécurité & Réseaux", "éclair", "apple"];
  for (const name of names) {
    assert.equal((await cli(["categories", "add", name, ...db])).code, 0);
    assert.equal((await cli(["smart-categories", "add", name, "--query", "x", ...db])).code, 0);
  }
  const expected = ["apple", "éclair", "Sécurité & Réseaux", "Sviluppo Web Italia", "Zebra"];
  const categories = JSON.parse((await cli(["categories", "list", "--json", ...db])).stdout);
  assert.deepEqual(
    categories.map((c: { categoryName: string }) => c.categoryName),
    expected,
  );
  const smart = JSON.parse((await cli(["smart-categories", "list", "--json", ...db])).stdout);
  assert.deepEqual(
    smart.map((c: { smartCategoryName: string }) => c.smartCategoryName),
    expected,
  );
});

test("commands that only read refuse a database that does not exist (exit 2), creating nothing", async () => {
  const cwd = tempFolder();
  const missing = join(cwd, "no", "such", "dir", "x.db");
  const readers = [
    ["feeds", "list"],
    ["feeds", "list", "--json"],
    ["feeds", "remove", "1"],
    ["categories", "list"],
    ["categories", "remove", "1"],
    ["smart-categories", "list"],
    ["smart-categories", "remove", "1"],
    ["languages", "list"],
    ["opml", "export"],
    ["ingest"],
  ];
  const runs = await Promise.all(readers.map((args) => cli([...args, "--database", missing], { cwd })));
  for (const [i, r] of runs.entries()) {
    const what = readers[i]!.join(" ");
    assert.equal(r.code, 2, `${what}: ${r.stderr}`);
    assert.equal(r.stdout, "", what);
    assert.equal(r.stderr.trim().split("\n").length, 1, what);
    assert.ok(r.stderr.includes(`No database at ${missing} (--database)`), `${what}: ${r.stderr}`);
    assert.match(r.stderr, /create one with "feed-service demo --database /, what);
  }
  // The same through the environment and with the sqlite: prefix; the default ./data/feeds.db too.
  const viaEnv = await cli(["categories", "list"], {
    cwd,
    env: { FEED_SERVICE_DATABASE: `sqlite:${missing}` },
  });
  assert.equal(viaEnv.code, 2, viaEnv.stderr);
  const byDefault = await cli(["languages", "list"], { cwd });
  assert.equal(byDefault.code, 2, byDefault.stderr);
  assert.match(byDefault.stderr, /No database at \.\/data\/feeds\.db \(--database\)/);
  assert.ok(!existsSync(join(cwd, "no")), "a folder was created for a database that was only read");
  assert.ok(!existsSync(join(cwd, "data")), "./data was created for a database that was only read");
  const migrate = await cli(["migrate-data", "--from", missing, "--to", join(cwd, "to.db")], { cwd });
  assert.equal(migrate.code, 2, migrate.stderr);
  assert.match(migrate.stderr, /No database at .*x\.db \(--from\)/);
  assert.ok(!existsSync(join(cwd, "to.db")), "migrate-data created its target from nothing");
  // A command that writes creates the folder and the database, and says so the first time only.
  const created = await cli(["languages", "add", "en", "--database", missing], { cwd });
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stderr, `feed-service: created database ${missing}\n`);
  const listed = await cli(["languages", "list", "--database", missing], { cwd });
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(listed.stderr, "");
  assert.match(listed.stdout, /^languageId/);
});

function startBin(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr!.on("data", (c) => {
    out += c;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 60_000);
    child.stdout!.on("data", (c) => {
      out += c;
      const m = /listening on [^\n]*:(\d+)\n/.exec(out);
      if (m && /health:/.test(out)) {
        clearTimeout(timer);
        resolve({ child, base: `http://127.0.0.1:${m[1]}`, output: () => out });
      }
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  return exited;
}

test("demo then serve: prints the URLs, answers SOAP and /healthz, stops cleanly on SIGTERM", async () => {
  const cwd = tempFolder();
  const demo = await cli(["demo", "--posts", "300", "--now", "2026-01-15T12:00:00Z", "--json"], { cwd });
  assert.equal(demo.code, 0, demo.stderr);
  assert.equal(JSON.parse(demo.stdout).posts, 300);
  assert.ok(existsSync(join(cwd, "data", "feeds.db")), "the default database is ./data/feeds.db");
  const again = await cli(["demo"], { cwd });
  assert.equal(again.code, 1, "demo loads only into an empty database");
  const { child, base, output } = await startBin(
    ["serve", "--host", "127.0.0.1", "--heavy-queries", "3"],
    cwd,
    {
      FEED_SERVICE_PORT: "0",
      FEED_SERVICE_PUBLIC_URL: "https://feeds.example.org",
      FEED_SERVICE_SITE_NAME: "Planet Test",
    },
  );
  try {
    assert.match(output(), /WSDL: +https:\/\/feeds\.example\.org\/webservices\/FeedAggregator\?wsdl/);
    // It read the database into memory before it listened, and said so.
    const warmed =
      /feed-service: read ([\d,]+) (KB|MB) of the database into memory in \d+\.\d s \(--no-warm skips this\)\n/.exec(
        output(),
      );
    assert.ok(warmed, output());
    assert.ok(output().indexOf(warmed[0]) < output().indexOf("listening on"), "warmed before listening");
    const kilobytes = Number(warmed[1]!.replace(/,/g, "")) * (warmed[2] === "MB" ? 1024 : 1);
    assert.ok(kilobytes >= 100, `a 300-post database read as ${warmed[1]} ${warmed[2]}`);
    assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), { status: "ok" });
    // --heavy-queries 3: three heavy query threads, the catalogue thread and the writer.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /feed_service_database_connections\{state="open"\} 5\n/);
    const wsdl = await (await fetch(`${base}/webservices/FeedAggregator?wsdl`)).text();
    assert.match(wsdl, /location="https:\/\/feeds\.example\.org\/webservices\/FeedAggregator"/);
    // --site-name names the feeds and pages; items carry tag ids under the public URL's host.
    const feed = await (await fetch(`${base}/feeds/recent.rss`)).text();
    assert.match(feed, /Planet Test — Recent posts/);
    assert.match(feed, /<guid isPermaLink="false">tag:feeds\.example\.org,\d{4}-\d\d-\d\d:post\/\d+<\/guid>/);
    assert.match(await (await fetch(`${base}/`)).text(), /<title>Recent posts · Planet Test<\/title>/);
    // Answered by the query threads of the built package.
    const recent = await soapCall(
      base,
      "<getMostRecentPosts><limit>5</limit><offset>0</offset><languageIds/></getMostRecentPosts>",
    );
    assert.equal(recent.status, 200);
    assert.equal((recent.body.match(/<data soapenc:arrayType="xsd:anyType\[12\]"/g) ?? []).length, 5);
  } finally {
    assert.equal(await stop(child), 0);
  }
  // A deadline no query can meet: the call gets a fault that says so, and the server keeps serving.
  const strict = await startBin(
    ["serve", "--host", "127.0.0.1", "--no-ingest", "--no-warm", "--query-timeout", "0.001"],
    cwd,
    {
      FEED_SERVICE_PORT: "0",
    },
  );
  try {
    assert.doesNotMatch(strict.output(), /into memory/, "--no-warm still warmed");
    // On a 300-post database one search alone can finish inside 1 ms on a warm query thread; 32
    // at once (different offsets, so no answer comes from the cache) queue behind the two threads,
    // and the deadline counts the wait: the later ones cannot make it.
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, offset) =>
        soapCall(
          strict.base,
          `<search><limit>1000</limit><offset>${offset}</offset><searchTerms>the</searchTerms><sortBy/><languageIds/></search>`,
        ),
      ),
    );
    const faults = answers.filter((a) => a.status !== 200);
    assert.ok(faults.length > 0, "some calls passed the 1 ms deadline");
    for (const search of faults) {
      assert.equal(search.status, 500);
      assert.match(search.body, /<faultcode>soapenv:Server\.userException<\/faultcode>/);
      assert.match(
        search.body,
        /ComponentInvocationException: The query ran past the 1 ms query deadline and was stopped/,
      );
    }
    assert.deepEqual(await (await fetch(`${strict.base}/healthz`)).json(), { status: "ok" });
  } finally {
    assert.equal(await stop(strict.child), 0);
  }
});

async function soapCall(base: string, call: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${base}/webservices/FeedAggregator`, {
    method: "POST",
    headers: { "Content-Type": "text/xml" },
    body: `<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body>${call.replace(/^<(\w+)/, '<$1 xmlns="http://webservices"')}</Body></Envelope>`,
  });
  return { status: r.status, body: await r.text() };
}

test("start-demo creates ./data/feeds.db on first run and reuses it after", async () => {
  const cwd = tempFolder();
  const first = await startBin(["start-demo", "--host", "127.0.0.1"], cwd, { FEED_SERVICE_PORT: "0" });
  try {
    assert.match(first.output(), /creating \.\/data\/feeds\.db with demo data/);
    assert.match(first.output(), /WSDL: +http:\/\/127\.0\.0\.1:\d+\/webservices\/FeedAggregator\?wsdl/);
    assert.match(first.output(), /clicks: +http:\/\/127\.0\.0\.1:\d+\/click\/<postId>/);
    // `npm start` opens onto the pages: their address leads the banner, and they answer.
    const banner = first.output().slice(first.output().indexOf("Open "));
    assert.match(
      banner,
      /^Open http:\/\/127\.0\.0\.1:\d+\/ in a browser to read the feeds\.\nfeed-service listening on /,
    );
    assert.match(await (await fetch(`${first.base}/`)).text(), /<h1>Recent posts<\/h1>/);
    const r = await fetch(`${first.base}/webservices/FeedAggregator`, {
      method: "POST",
      headers: { "Content-Type": "text/xml" },
      body: '<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><getCategories xmlns="http://webservices"/></Body></Envelope>',
    });
    assert.equal(r.status, 200);
    assert.equal(((await r.text()).match(/<data soapenc:arrayType="xsd:anyType\[3\]"/g) ?? []).length, 6);
  } finally {
    assert.equal(await stop(first.child), 0);
  }
  // The search history's file (schema 25) was built and renamed with the database.
  assert.ok(existsSync(join(cwd, "data", "feeds.db-history")));
  assert.ok(!existsSync(join(cwd, "data", "feeds.db.building-history")));
  // Without --host the demo listens on 127.0.0.1 only, and says so and how to change it.
  const second = await startBin(["start-demo"], cwd, { FEED_SERVICE_PORT: "0" });
  try {
    assert.match(second.output(), /using the existing \.\/data\/feeds\.db/);
    assert.match(second.output(), /feed-service listening on 127\.0\.0\.1:\d+\n/);
    assert.match(
      second.output(),
      /\nOnly this machine can connect \(--host 0\.0\.0\.0 or FEED_SERVICE_HOST=0\.0\.0\.0 opens it to the network\); --port or FEED_SERVICE_PORT changes the port\. Ctrl-C stops it\.\n/,
    );
  } finally {
    assert.equal(await stop(second.child), 0);
  }
});
