/**
 * Writes a file only its owner may read, whole or not at all: under a temporary name created with
 * mode 0600, then renamed over the target, so that no moment exists at which the content sits in a
 * file with looser permissions, or half-written. The folder is created 0700 when missing.
 */
import { chmodSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Throws the file system's error (the temporary file removed); callers name the file in their own words.
 *
 * @example
 * writePrivateFile("/home/me/.cache/platform-auth/tokens.json", JSON.stringify(entries));
 */
export function writePrivateFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
    // The mode given at creation is narrowed by the umask only; chmod makes it exact.
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
}
