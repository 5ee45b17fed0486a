import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import type { AccessToken } from "./access-token.js";
import { PlatformAuthError } from "./errors.js";
import { withFileLock } from "./file-lock.js";
import { writePrivateFile } from "./private-file.js";

/** What identifies a credential set in the cache: no secret goes into the key. */
export interface CacheKeyParts {
  method: string;
  authUrl: string;
  clientId: string;
  orgId: string;
  scopes: readonly string[];
  technicalAccountId?: string;
}

/** A hash of auth URL + client id + org + scopes (+ method, technical account), so the file names no account. */
export function tokenCacheKey(p: CacheKeyParts): string {
  const parts = [
    p.method,
    p.authUrl,
    p.clientId,
    p.orgId,
    [...p.scopes].sort().join(","),
    p.technicalAccountId ?? "",
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

type Entries = Record<string, AccessToken>;

/**
 * Tokens kept on disk between processes, in one JSON file readable by its owner only (mode 0600, in
 * a 0700 folder), like ssh keys. A file that others can read, or that another user owns, is refused
 * rather than trusted: its tokens may already have leaked, or been planted.
 *
 * @example
 * const store = new TokenFileStore(`${process.env.HOME}/.cache/platform-auth/tokens.json`);
 * const key = tokenCacheKey({ method: "oauth", authUrl, clientId, orgId, scopes });
 * const cached = store.load(key); // AccessToken | undefined
 */
export class TokenFileStore {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  load(key: string): AccessToken | undefined {
    const entry = this.#read()[key];
    if (!entry || typeof entry.accessToken !== "string" || typeof entry.expiresAt !== "number")
      return undefined;
    return entry;
  }

  save(key: string, token: AccessToken): void {
    const entries = this.#read();
    const now = Date.now();
    // Drop long-expired entries so that the file does not grow without bound.
    for (const [k, v] of Object.entries(entries)) if (v.expiresAt < now - 86_400_000) delete entries[k];
    entries[key] = token;
    this.#write(entries);
  }

  /** Removes the entry only if it still holds `accessToken` (another process may have replaced it). */
  remove(key: string, accessToken: string): void {
    const entries = this.#read();
    if (entries[key]?.accessToken !== accessToken) return;
    delete entries[key];
    this.#write(entries);
  }

  /**
   * Runs `work` while holding `<file>.lock`, so that processes started together (a shell loop, a
   * parallel build) mint once between them: the first mints, the others wait and then find its
   * token in the file. See {@link withFileLock}.
   */
  withLock<T>(work: () => Promise<T>, opts: { maxWaitMs?: number; staleMs?: number } = {}): Promise<T> {
    return withFileLock(this.path, work, opts);
  }

  #read(): Entries {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw this.#error("could not be read", err);
    }
    if (!stat.isFile()) throw this.#error("is not a regular file");
    if (process.getuid && stat.uid !== process.getuid()) throw this.#error("belongs to another user");
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8);
      throw this.#error(`is readable or writable by other users (mode ${mode}); run: chmod 600 ${this.path}`);
    }
    try {
      const data = JSON.parse(readFileSync(this.path, "utf8"));
      return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Entries) : {};
    } catch {
      // A damaged cache only costs a mint; it is rewritten on the next save.
      return {};
    }
  }

  #write(entries: Entries): void {
    try {
      writePrivateFile(this.path, JSON.stringify(entries));
    } catch (err) {
      throw this.#error("could not be written", err);
    }
  }

  #error(what: string, cause?: unknown): PlatformAuthError {
    return new PlatformAuthError("PA_CACHE", `token cache ${this.path} ${what}`, { cause });
  }
}
