import type { AccessToken } from "./access-token.js";
import type { AuthMethod } from "./settings.js";

/** Mints access tokens for one credential set. Implemented per method; cached by `TokenCache`. */
export interface TokenProvider {
  readonly method: AuthMethod;
  /** Mints a new token; never consults a cache. */
  mint(signal?: AbortSignal): Promise<AccessToken>;
}
