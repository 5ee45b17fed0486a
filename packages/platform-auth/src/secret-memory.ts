import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { writePrivateFile } from "./private-file.js";

/** What is remembered of a credential's secrets: fingerprints only, never a secret. */
export interface SecretState {
  /** Fingerprint of the secret that worked last. */
  working?: string;
  /** Fingerprints of secrets refused while another worked (already reported). */
  refused: string[];
}

/**
 * A short SHA-256 fingerprint of a secret: enough to recognise it among the two or three of one
 * credential, and useless for recovering it (client secrets are long random strings).
 */
export function fingerprintOf(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 16);
}

/**
 * Which of a credential's secrets worked last, kept between processes (beside the token cache,
 * owner-only), so that after a rotation every later process tries the live secret first and the
 * dead one is reported once, not once per process. A missing or damaged file only costs a retry.
 *
 * @example
 * const memory = new SecretMemory("/home/me/.cache/platform-auth/secrets.json");
 * memory.save(key, { working: fingerprintOf(secret), refused: [] });
 */
export class SecretMemory {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  load(key: string): SecretState {
    const entry = this.#read()[key];
    return {
      working: typeof entry?.working === "string" ? entry.working : undefined,
      refused: Array.isArray(entry?.refused) ? entry.refused.filter((f) => typeof f === "string") : [],
    };
  }

  save(key: string, state: SecretState): void {
    const all = this.#read();
    all[key] = state;
    try {
      writePrivateFile(this.path, JSON.stringify(all));
    } catch {
      // Remembering is an optimisation: failing to write costs one refused request later.
    }
  }

  #read(): Record<string, Partial<SecretState>> {
    try {
      const stat = lstatSync(this.path);
      if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid())) return {};
      const data = JSON.parse(readFileSync(this.path, "utf8"));
      return typeof data === "object" && data !== null && !Array.isArray(data) ? data : {};
    } catch {
      return {};
    }
  }
}
