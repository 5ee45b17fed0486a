import type { Fault, FaultDirection } from "./fault-spec.js";
import { RelayError } from "./relay-error.js";

// Toxiproxy's toxics (its README, "Toxics") and the relay's faults they map to. Toxiproxy's
// streams: upstream is client to server, downstream (its default) server to client.

/** A toxic as toxiproxy's HTTP API carries it. */
export interface ToxicJson {
  name: string;
  type: string;
  stream: string;
  toxicity: number;
  attributes: Record<string, number>;
}

/** The toxic types this relay takes, and the fault each becomes. */
export const TOXIC_TYPES: Record<string, Fault["kind"]> = {
  latency: "delay",
  bandwidth: "rate",
  slicer: "slice",
  limit_data: "limit",
  reset_peer: "reset",
  timeout: "blackhole",
};

const STREAMS: Record<string, FaultDirection> = { upstream: "c2s", downstream: "s2c" };

function badToxic(message: string): RelayError {
  return new RelayError("TCP_RELAY_BAD_ARGUMENT", message);
}

function attribute(
  attrs: Record<string, unknown>,
  key: string,
  fallback: number | undefined,
  min: number,
): number {
  const v = attrs[key] ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min) {
    throw badToxic(
      `attribute "${key}" must be a number of at least ${min}; got ${JSON.stringify(attrs[key])}`,
    );
  }
  return v;
}

/**
 * The fault of a toxic sent to `POST /proxies/<name>/toxics` (or, with `existing`, to update one:
 * its type and stream are kept, attributes not sent keep their values).
 *
 * @example
 * faultFromToxic({ type: "latency", stream: "upstream", attributes: { latency: 200 } });
 * // { kind: "delay", ms: 200, jitterMs: 0, dir: "c2s", every: 1, toxicity: 1, name: "latency_upstream" }
 */
export function faultFromToxic(body: unknown, existing?: Fault): Fault {
  if (typeof body !== "object" || body === null) throw badToxic("the body must be a JSON object");
  const b = body as Record<string, unknown>;
  const old = existing === undefined ? undefined : toxicFromFault(existing);
  const type = old?.type ?? b.type;
  if (typeof type !== "string" || !(type in TOXIC_TYPES)) {
    throw badToxic(
      `toxic type ${JSON.stringify(type)} is not supported (supported: ${Object.keys(TOXIC_TYPES).join(", ")})`,
    );
  }
  const streamName = old === undefined ? (b.stream ?? "downstream") : old.stream;
  const dir =
    typeof streamName === "string"
      ? (STREAMS[streamName] ?? (streamName === "both" ? "both" : undefined))
      : undefined;
  if (dir === undefined)
    throw badToxic(`stream must be "upstream" or "downstream"; got ${JSON.stringify(streamName)}`);
  const toxicity = attribute({ toxicity: b.toxicity }, "toxicity", old?.toxicity ?? 1, 0);
  if (toxicity > 1) throw badToxic(`toxicity must be from 0 to 1; got ${toxicity}`);
  const given = b.attributes ?? {};
  if (typeof given !== "object" || given === null) throw badToxic("attributes must be a JSON object");
  const attrs = { ...old?.attributes, ...(given as Record<string, unknown>) };
  const name =
    existing?.name ?? (typeof b.name === "string" && b.name !== "" ? b.name : `${type}_${streamName}`);
  const base = { name, dir, every: existing?.every ?? 1, toxicity };
  switch (type) {
    case "latency":
      return {
        ...base,
        kind: "delay",
        ms: attribute(attrs, "latency", 0, 0),
        jitterMs: attribute(attrs, "jitter", 0, 0),
      };
    case "bandwidth": {
      // Toxiproxy's rate is in KB/s of 1,000 bytes.
      const rate = attribute(attrs, "rate", undefined, 0);
      if (rate === 0) throw badToxic('attribute "rate" must be greater than 0');
      return { ...base, kind: "rate", kibPerSecond: (rate * 1000) / 1024 };
    }
    case "slicer": {
      const bytes = attribute(attrs, "average_size", undefined, 1);
      const variation = attribute(attrs, "size_variation", 0, 0);
      if (variation >= bytes)
        throw badToxic('attribute "size_variation" must be smaller than "average_size"');
      // Toxiproxy's slicer delay is in microseconds.
      return { ...base, kind: "slice", bytes, variation, ms: attribute(attrs, "delay", 0, 0) / 1000 };
    }
    case "limit_data":
      return { ...base, kind: "limit", bytes: attribute(attrs, "bytes", undefined, 0) };
    case "reset_peer":
      return { ...base, kind: "reset", ms: attribute(attrs, "timeout", 0, 0) };
    default: {
      // toxiproxy's timeout toxic stops all data at once, and closes the connection after
      // `timeout` ms (never with 0): a blackhole from now on, closing after that.
      const timeout = attribute(attrs, "timeout", 0, 0);
      return { ...base, kind: "blackhole", ms: 0, ...(timeout > 0 ? { closeAfterMs: timeout } : {}) };
    }
  }
}

/** The toxic a fault shows as in the API; faults with no toxic type show under their option's name. */
export function toxicFromFault(f: Fault): ToxicJson {
  const stream = f.dir === "c2s" ? "upstream" : f.dir === "s2c" ? "downstream" : "both";
  const base = { name: f.name, stream, toxicity: f.toxicity };
  switch (f.kind) {
    case "delay":
      return { ...base, type: "latency", attributes: { latency: f.ms, jitter: f.jitterMs } };
    case "rate":
      return { ...base, type: "bandwidth", attributes: { rate: Math.round((f.kibPerSecond * 1024) / 1000) } };
    case "slice":
      return {
        ...base,
        type: "slicer",
        attributes: { average_size: f.bytes, size_variation: f.variation, delay: Math.round(f.ms * 1000) },
      };
    case "limit":
      return { ...base, type: "limit_data", attributes: { bytes: f.bytes } };
    case "reset":
      return { ...base, type: "reset_peer", attributes: { timeout: f.ms } };
    case "blackhole":
      return f.ms === 0
        ? { ...base, type: "timeout", attributes: { timeout: f.closeAfterMs ?? 0 } }
        : { ...base, type: "blackhole", attributes: { after: f.ms } };
    case "refuse":
      return { ...base, type: "refuse", attributes: { every: f.every } };
  }
}
