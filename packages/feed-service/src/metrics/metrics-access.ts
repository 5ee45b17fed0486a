/**
 * Who may read `/metrics` (spec §5.4: `--metrics-allow <cidr,...>`, default loopback only): a list
 * of addresses and CIDR blocks, IPv4 and IPv6, checked against the connection's peer address (no
 * forwarding header is trusted: anyone can write one).
 */
import { BlockList, isIP } from "node:net";
import { badArgument } from "../errors.js";

export const defaultMetricsAllow = "127.0.0.0/8,::1/128";

export interface MetricsAccess {
  allows(address: string | undefined): boolean;
}

/**
 * Reads the allow list; throws a FEED_BAD_ARGUMENT error naming the entry that is neither an address nor a CIDR block.
 *
 * @example
 * parseMetricsAllow("10.0.0.0/8, 192.168.1.7, fd00::/8").allows("10.1.2.3"); // true
 */
export function parseMetricsAllow(text: string): MetricsAccess {
  const list = new BlockList();
  for (const entry of text.split(",").map((e) => e.trim())) {
    if (entry === "") continue;
    const [address, prefixText, extra] = entry.split("/");
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
    if (family === 0 || extra !== undefined || prefix < 0 || prefix > max) {
      throw badArgument(
        `The metrics allow list must hold IPv4 or IPv6 addresses or CIDR blocks such as 10.0.0.0/8 or fd00::/8, comma-separated; got ${JSON.stringify(entry)}.`,
      );
    }
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return {
    allows(address) {
      if (address === undefined) return false;
      // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
      const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
      if (v4 !== undefined) return list.check(v4, "ipv4");
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
    },
  };
}
