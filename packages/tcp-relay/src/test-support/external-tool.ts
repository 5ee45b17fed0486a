import { execFile } from "node:child_process";
import { promisify } from "node:util";

export const run = promisify(execFile);

/** Whether an external program answers (`command args` exits 0 within 30 s). */
export async function toolAvailable(command: string, args: readonly string[]): Promise<boolean> {
  try {
    await run(command, args, { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Skips a test whose external tool is missing, loudly; under CI (`CI=true`) fails it instead, so
 * that CI can never pass by skipping (the repository's rule for interop tests).
 */
export function missingTool(t: { skip(message?: string): void }, what: string, install: string): void {
  const message = `missing ${what}; install ${install} to run this test`;
  if (process.env.CI === "true") throw new Error(`CI=true: ${message}`);
  console.warn(`\n!!! SKIPPED: ${message} !!!\n`);
  t.skip(message);
}
