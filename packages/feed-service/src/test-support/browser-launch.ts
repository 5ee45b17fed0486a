/**
 * Starts Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) through playwright-core, which
 * brings no browser of its own. When Chromium is missing, local runs skip the browser tests with a
 * loud message and CI runs (CI=true, set by .ci/run, which installs chromium) fail: a browser test
 * that quietly does not run would look like one that passes.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The flags every run uses: no sandbox (tests run as root in containers), headless, and nothing
 * that reaches the network on its own (QUIC, component updates, sync, background requests).
 */
const chromiumFlags = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface LaunchedBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

/**
 * The browser, or a reason to skip. Throws under CI=true when Chromium is missing.
 *
 * @example
 * const launched = await launchChromium();
 * if (typeof launched === "string") return t.skip(launched);
 */
export async function launchChromium(): Promise<LaunchedBrowser | string> {
  if (!existsSync(chromiumPath)) {
    const message = `Chromium not found at ${chromiumPath}: the browser tests of the web pages did not run. Install it (apt-get install chromium) or set CHROMIUM_PATH.`;
    if (process.env.CI === "true") throw new Error(message);
    process.stderr.write(`\n*** SKIPPED: ${message} ***\n\n`);
    return message;
  }
  // launch() gives Chromium a fresh --user-data-dir of its own making (and removes it on close),
  // so no state (cache, storage, permissions) leaks between runs; it refuses one passed in args.
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: chromiumFlags,
    timeout: 60_000,
  });
  return { browser, close: () => browser.close() };
}
