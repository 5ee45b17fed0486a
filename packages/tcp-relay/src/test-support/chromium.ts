// Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) through playwright-core, which brings no
// browser of its own; missing, it skips loudly, and fails under CI=true.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { missingTool } from "./external-tool.js";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The browser, or null after skipping the test (`t`) when Chromium is missing. */
export async function launchChromium(t: { skip(message?: string): void }): Promise<Browser | null> {
  if (!existsSync(chromiumPath)) {
    missingTool(t, `Chromium at ${chromiumPath}`, "Debian's chromium (or set CHROMIUM_PATH)");
    return null;
  }
  return chromium.launch({
    executablePath: chromiumPath,
    // No sandbox: tests run as root in containers. Nothing reaches the network on its own.
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
    timeout: 60_000,
  });
}
