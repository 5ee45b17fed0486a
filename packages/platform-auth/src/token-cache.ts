import { type AccessToken, refreshTimeOf } from "./access-token.js";
import type { TokenFileStore } from "./token-file-store.js";
import type { TokenProvider } from "./token-provider.js";

export interface TokenCacheOptions {
  /** Stop using a token this long before it expires (default 10 minutes; capped at half its lifetime). */
  refreshMarginMs?: number;
  /** Clock, in epoch milliseconds (tests pass a fake one). */
  now?: () => number;
  /** Optional on-disk store, shared between processes. */
  file?: { store: TokenFileStore; key: string };
  /** Told about each mint (for counters and `--verbose`); receives no token. */
  onMint?: (info: { method: string; expiresAt: number }) => void;
}

/**
 * Holds the current token of one credential set and mints a new one only when needed. Concurrent
 * callers on a cold or stale cache share one mint (single flight), because the platform throttles
 * integrations that mint too often.
 *
 * @example
 * const cache = new TokenCache(provider, { refreshMarginMs: 600_000 });
 * const [a, b] = await Promise.all([cache.get(), cache.get()]); // one mint; a === b
 */
export class TokenCache {
  readonly #provider: TokenProvider;
  readonly #margin: number;
  readonly #now: () => number;
  readonly #file: TokenCacheOptions["file"];
  readonly #onMint: TokenCacheOptions["onMint"];
  #current: AccessToken | undefined;
  #refreshAt = 0;
  #pending: Promise<AccessToken> | undefined;

  constructor(provider: TokenProvider, opts: TokenCacheOptions = {}) {
    this.#provider = provider;
    this.#margin = opts.refreshMarginMs ?? 600_000;
    this.#now = opts.now ?? Date.now;
    this.#file = opts.file;
    this.#onMint = opts.onMint;
  }

  /** The cached token if it is still usable, without waiting; the hot path of every call. */
  fresh(): AccessToken | undefined {
    return this.#current !== undefined && this.#now() < this.#refreshAt ? this.#current : undefined;
  }

  /** A usable token: the cached one, one from the cache file, or a new one (one mint at a time). */
  get(): Promise<AccessToken> {
    const fresh = this.fresh();
    if (fresh) return Promise.resolve(fresh);
    this.#pending ??= this.#obtain().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * Forgets `accessToken` after the service rejected it. Callers that hold an older token do not
   * discard a newer one minted meanwhile, so a burst of 401s still costs one mint.
   */
  invalidate(accessToken: string): void {
    if (this.#current?.accessToken !== accessToken) return;
    this.#current = undefined;
    this.#refreshAt = 0;
    this.#file?.store.remove(this.#file.key, accessToken);
  }

  async #obtain(): Promise<AccessToken> {
    const file = this.#file;
    if (!file) return this.#mint();
    // Other processes share the file: look there first, and mint under its lock so that they
    // find this token instead of minting their own.
    return file.store.withLock(async () => {
      const stored = file.store.load(file.key);
      if (stored && this.#now() < refreshTimeOf(stored, this.#margin)) return this.#keep(stored);
      return this.#mint();
    });
  }

  async #mint(): Promise<AccessToken> {
    const token = await this.#provider.mint();
    this.#onMint?.({ method: token.method, expiresAt: token.expiresAt });
    this.#file?.store.save(this.#file.key, token);
    return this.#keep(token);
  }

  #keep(token: AccessToken): AccessToken {
    this.#current = token;
    this.#refreshAt = refreshTimeOf(token, this.#margin);
    return token;
  }
}
