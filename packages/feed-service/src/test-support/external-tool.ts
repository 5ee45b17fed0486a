/**
 * Interop tests need real clients (php, java). Without them a developer's run skips loudly; under
 * CI (`CI=true`) a missing tool fails, so that CI can never pass by skipping the interop checks.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function toolAvailable(
  command: string,
  args: readonly string[],
  expect?: RegExp,
): Promise<boolean> {
  try {
    const { stdout, stderr } = await run(command, args, { timeout: 30_000 });
    return expect === undefined || expect.test(stdout + stderr);
  } catch {
    return false;
  }
}

export function missingTool(t: { skip(message?: string): void }, what: string, install: string): void {
  const message = `${what} is not available; install ${install} to run this interop test`;
  if (process.env.CI === "true") throw new Error(`CI=true: ${message}`);
  console.warn(`\n!!! SKIPPED: ${message} !!!\n`);
  t.skip(message);
}
