/**
 * What the browser tests check on every page they open: no script error, no Content-Security-
 * Policy violation, no dialog, nothing from the hostile feed ran, and axe-core (injected as a
 * script) finds no serious or critical accessibility violation.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { BrowserContext, Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface WatchedPage {
  readonly page: Page;
  /** Console errors (CSP violations are reported there), page errors and dialogs, as they came. */
  readonly problems: string[];
}

/** A new page of `context` whose problems are recorded from the start. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, problems };
}

/** Opens `url` and checks its status. */
export async function open(watched: WatchedPage, url: string, status = 200): Promise<void> {
  const response = await watched.page.goto(url);
  assert.equal(response?.status(), status, url);
}

/**
 * Serious and critical axe violations of the page, as "rule: target" lines. axe runs through
 * `evaluate` (the DevTools protocol), not a <script> tag, so the page's CSP stays in force.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.targets.slice(0, 3).join(", ")}`);
}

/** The checks every opened page must pass; `label` names the page in failures. */
export async function assertCleanPage(watched: WatchedPage, label: string): Promise<void> {
  const { page, problems } = watched;
  assert.deepEqual(problems, [], `${label}: script errors, CSP violations or dialogs`);
  assert.equal(
    await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned),
    undefined,
    `${label}: hostile text ran`,
  );
  assert.deepEqual(await axeViolations(page), [], `${label}: serious or critical accessibility violations`);
}
