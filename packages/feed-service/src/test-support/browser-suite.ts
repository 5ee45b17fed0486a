/**
 * The shared frame of the browser test files: Chromium launched once per file (or the reason it
 * was skipped), the demo site, a fresh browser context per test whose requests to other hosts get
 * a stub page (the tests never reach the network), and the walk over the main pages.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { BrowserContext } from "playwright-core";
import { type LaunchedBrowser, launchChromium } from "./browser-launch.js";
import { type DemoSite, startDemoSite } from "./demo-site.js";
import { assertCleanPage, open, type WatchedPage, watchedPage } from "./page-checks.js";

let launched: LaunchedBrowser | undefined;
let skipReason: string | undefined;
let currentSite: DemoSite | undefined;

/** The running demo site of this file (set once the browser has started). */
export function site(): DemoSite {
  if (!currentSite) throw new Error("the demo site starts in the before hook");
  return currentSite;
}
/** The site's base URL, e.g. `http://127.0.0.1:41234`. */
export function base(): string {
  return site().service.baseUrl;
}

before(async () => {
  const result = await launchChromium();
  if (typeof result === "string") {
    skipReason = result;
    return;
  }
  launched = result;
  currentSite = await startDemoSite();
});
after(async () => {
  await launched?.close();
  await currentSite?.service.close();
});

/**
 * A browser context on the site; requests that leave it (a post's own page after /click) get a
 * stub page, so the tests never reach the network.
 */
async function siteContext(
  options: Parameters<LaunchedBrowser["browser"]["newContext"]>[0] = {},
): Promise<BrowserContext> {
  const context = await launched!.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  // Every request is seen here, redirect hops included (a /click answer leads off the site).
  await context.route("**/*", (route) =>
    route.request().url().startsWith(base())
      ? route.fallback()
      : route.fulfill({
          status: 200,
          contentType: "text/html",
          body: "<!doctype html><title>A post elsewhere</title><h1>Elsewhere</h1>",
        }),
  );
  return context;
}

type BrowserTest = (context: BrowserContext) => Promise<void>;

/** A test that runs in a fresh context, or skips (loudly, see browser-launch.ts) without Chromium. */
export function browserTest(
  name: string,
  body: BrowserTest,
  contextOptions?: Parameters<typeof siteContext>[0],
): void {
  test(name, { timeout: 180_000 }, async (t) => {
    if (!launched) return t.skip(skipReason);
    const context = await siteContext(contextOptions);
    try {
      await body(context);
    } finally {
      await context.close();
    }
  });
}

/** The pages every mode visits, with what their heading says. */
export const mainPages: ReadonlyArray<readonly [string, RegExp]> = [
  ["/", /^Recent posts$/],
  ["/?page=2", /^Recent posts$/],
  ["/search?q=data", /^Search: .?data.?$/],
  ["/search", /^Search$/],
  ["/popular", /^Popular: this week$/],
  ["/categories", /^Categories$/],
  ["/categories/1", /./],
  ["/smart-categories", /^Smart categories$/],
  ["/smart-categories/1", /./],
  ["/feeds", /^Feeds$/],
  ["/feeds/1", /./],
  ["/languages", /^Languages$/],
];

/**
 * Opens every main page and checks its heading, title and cleanliness. With JavaScript off, axe
 * and the window probe cannot run in the page (both are scripts); the problems list still must
 * stay empty, and the markup is the same one the other modes check with axe.
 */
export async function visitMainPages(
  context: BrowserContext,
  mode: string,
  scripts = true,
): Promise<WatchedPage> {
  const watched = await watchedPage(context);
  for (const [path, heading] of mainPages) {
    await open(watched, base() + path);
    const label = `${mode} ${path}`;
    assert.match((await watched.page.locator("h1").innerText()).trim(), heading, label);
    assert.match(await watched.page.title(), / · Feed aggregator$/, label);
    if (scripts) await assertCleanPage(watched, label);
    else assert.deepEqual(watched.problems, [], label);
  }
  return watched;
}
