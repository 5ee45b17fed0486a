import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Whether an external program answers. Interop tests need real clients (php, java); on a
 * developer machine without them the test is skipped loudly, but under CI (`CI=true`) a missing
 * tool fails the test, so that CI can never pass by skipping the interop checks.
 */
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

/** Skips (or, under CI, fails) a test whose external tool is missing, with a message that says so. */
export function missingTool(t: { skip(message?: string): void }, what: string, install: string): void {
  const message = `missing ${what}; install ${install} to run this interop test`;
  if (process.env.CI === "true") throw new Error(`CI=true: ${message}`);
  console.warn(`\n!!! SKIPPED: ${message} !!!\n`);
  t.skip(message);
}
