import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Runs `work` while holding `<path>.lock` (created with O_EXCL, mode 0600), so that processes
 * sharing a file (the token cache, the usage meter) take turns. A lock older than `staleMs` is taken
 * to belong to a crashed process; after `maxWaitMs` the work runs anyway, since a spare mint or a
 * late count is better than a hang.
 *
 * @example
 * await withFileLock("/home/me/.cache/platform-auth/usage.json", async () => { ... });
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  opts: { maxWaitMs?: number; staleMs?: number } = {},
): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + (opts.maxWaitMs ?? 30_000);
  let held = false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  while (!held && Date.now() < deadline) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      held = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") break;
      try {
        if (Date.now() - statSync(lock).mtimeMs > (opts.staleMs ?? 60_000)) unlinkSync(lock);
      } catch {}
      await sleep(25);
    }
  }
  try {
    return await work();
  } finally {
    if (held) {
      try {
        unlinkSync(lock);
      } catch {}
    }
  }
}
