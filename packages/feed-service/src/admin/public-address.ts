/**
 * Fetches on behalf of people who are not the operator (a visitor's suggestion, spec §5.5) go to
 * the public internet only: no loopback, private, link-local, shared (CGN), multicast or reserved
 * address, unless the operator allows them (--allow-private-fetch). The rule is checked where the
 * connection is made (an undici connector), so it holds for every hop of a redirect and for the
 * address a name resolves to at that moment (no DNS rebinding between a check and the connect).
 */
import { Agent } from "undici";
import { type AddressRule, publicOnlyConnector } from "../ingest/fetch-address-rule.js";

// The rule itself is ingest's (one rule for every fetch); re-exported for the admin modules.
export {
  type AddressRule,
  RefusedAddressError,
  refusalIn,
  refusedAddress,
} from "../ingest/fetch-address-rule.js";

/**
 * An undici agent that connects to public addresses only (or anywhere with `allowPrivate`).
 *
 * @example
 * const agent = publicAddressAgent({ allowPrivate: false });
 * await fetchFeed(url, { dispatcher: agent, maxBytes: 2 * 1024 * 1024 });
 */
export function publicAddressAgent(opts: {
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  /** The rule (tests narrow it to reach a loopback server first); `refusedAddress` by default. */
  rule?: AddressRule;
}): Agent {
  const timeout = opts.connectTimeoutMs ?? 10_000;
  if (opts.allowPrivate)
    return new Agent({ connect: { timeout }, headersTimeout: 15_000, bodyTimeout: 15_000 });
  return new Agent({
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
    connect: publicOnlyConnector({ timeout, rule: opts.rule }),
  });
}
