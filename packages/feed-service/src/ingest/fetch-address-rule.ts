/**
 * Which addresses a fetch may connect to (spec §5.5: "no loopback, link-local or private addresses
 * unless the operator allows them"; --allow-private-fetch). The rule is checked where the
 * connection is made (an undici connector), so it holds for every hop of a redirect and for every
 * address a name resolves to at that moment: no DNS rebinding between a check and the connect.
 * Ingest, `feeds add`, `opml import` and the visitor fetches of src/admin share it.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { buildConnector } from "undici";

const refused = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", the unspecified address among them
  ["10.0.0.0", 8], // private (RFC 1918)
  ["100.64.0.0", 10], // shared address space (RFC 6598)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const) {
  refused.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64: reaches IPv4 addresses (checked again below)
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, "ipv6");
}

/** Why an address may not be fetched, or null when it is public. */
export function refusedAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return null;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return refusedAddress(mapped[1]!);
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(bare)) return `${bare} is an IPv4-mapped address`;
  const kind = family === 4 ? "ipv4" : "ipv6";
  return refused.check(bare, kind) ? `${bare} is not a public internet address` : null;
}

/** The error a refused connection fails with; its message names the address. */
export class RefusedAddressError extends Error {
  readonly code = "ERR_REFUSED_ADDRESS";
}

/** Decides whether an address may be reached: a reason to refuse it, or null. */
export type AddressRule = (address: string) => string | null;

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** dns.lookup, failing when any address the name resolves to is refused. */
const guardedLookup =
  (rule: AddressRule) =>
  (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const a of addresses) {
        const why = rule(a.address);
        if (why) return callback(new RefusedAddressError(`${hostname} resolves to ${why}.`), []);
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      const [first] = addresses;
      callback(null, first!.address, first!.family);
    });
  };

/**
 * An undici connector that refuses addresses the rule refuses: a literal address before any
 * socket, a name after resolving it (every answer checked).
 *
 * @example
 * new Agent({ connect: publicOnlyConnector({ timeout: 10_000 }) });
 */
export function publicOnlyConnector(opts: { timeout: number; rule?: AddressRule }): buildConnector.connector {
  const rule = opts.rule ?? refusedAddress;
  const connector = buildConnector({
    timeout: opts.timeout,
    lookup: guardedLookup(rule),
  } as buildConnector.BuildOptions);
  return (options, callback) => {
    // A literal address skips the lookup: it is checked here.
    const why = rule(options.hostname.replace(/^\[|\]$/g, ""));
    if (why) return callback(new RefusedAddressError(`${why}.`), null);
    return connector(options, callback);
  };
}

/** The refusal behind a failed fetch, if that is why it failed. */
export function refusalIn(error: unknown): RefusedAddressError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof RefusedAddressError) return e;
  }
  return undefined;
}
