/**
 * Dates as feeds write them: RFC 822/1123 (with named, military, or missing zones, two-digit
 * years, no weekday, no seconds), ISO 8601 / W3C-DTF (extended and basic forms, date only, no
 * zone = UTC), and, last, whatever `Date.parse` understands. Returns epoch milliseconds or null.
 */

const months: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  sept: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/** Zone names of RFC 822 §5.1 plus ones seen in the wild; minutes east of UTC. */
const namedZones: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AST: -240,
  ADT: -180,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  BST: 60,
  IST: 330,
  CET: 60,
  CEST: 120,
  EET: 120,
  EEST: 180,
  WET: 0,
  WEST: 60,
  JST: 540,
  KST: 540,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
  MSK: 180,
};

function zoneOffsetMinutes(zone: string): number | null {
  const z = zone.trim().replace(/^\(|\)$/g, "");
  if (z === "") return 0; // no zone: read as UTC, as feedparser does
  const numeric = /^(?:GMT|UTC)?([+-])(\d{1,2}):?(\d{2})?$/i.exec(z);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
    return numeric[1] === "-" ? -minutes : minutes;
  }
  const upper = z.toUpperCase();
  if (upper in namedZones) return namedZones[upper]!;
  // RFC 822 military zones: A-I, K-M east (+1..+12), N-Y west (-1..-12), Z = UTC.
  if (/^[A-IK-Z]$/.test(upper)) {
    const c = upper.charCodeAt(0);
    if (upper === "Z") return 0;
    if (c <= 73) return (c - 64) * 60;
    if (c <= 77) return (c - 65) * 60;
    return -(c - 77) * 60;
  }
  return null;
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, offset: number) {
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return null;
  const t = Date.UTC(y, mo, d, h, mi, s, ms) - offset * 60_000;
  return Number.isFinite(t) ? t : null;
}

const iso =
  /^(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?(?:[T\s](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseIso(text: string): number | null {
  const m = iso.exec(text);
  if (!m) return null;
  const offset = m[8] ? zoneOffsetMinutes(m[8]) : 0;
  if (offset === null) return null;
  const ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  return utc(
    Number(m[1]),
    Number(m[2] ?? 1) - 1,
    Number(m[3] ?? 1),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    ms,
    offset,
  );
}

const rfc822 =
  /^(?:[A-Za-z]+\.?,?\s*)?(\d{1,2})[\s-]+([A-Za-z]{3,9})\.?,?[\s-]+(\d{2,4}),?(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?\s*(.*)$/;

function parseRfc822(text: string): number | null {
  const m = rfc822.exec(text);
  if (!m) return null;
  const month =
    months[m[2]!.slice(0, m[2]!.length === 4 ? 4 : 3).toLowerCase()] ??
    months[m[2]!.slice(0, 3).toLowerCase()];
  if (month === undefined) return null;
  let year = Number(m[3]);
  // Two-digit years (RFC 822 allows them): 00-49 are 20xx, 50-99 are 19xx (as RFC 2822 §4.3).
  if (m[3]!.length <= 2) year += year < 50 ? 2000 : 1900;
  const offset = zoneOffsetMinutes(m[7] ?? "");
  if (offset === null) return null;
  return utc(year, month, Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), 0, offset);
}

/**
 * Parses a feed date to epoch milliseconds, or null when no reading makes sense.
 *
 * @example
 * parseFeedDate("Sat, 07 Sep 2002 00:00:01 GMT"); // 1031356801000
 * parseFeedDate("2003-12-13T18:30:02+01:00");     // 1071336602000
 */
export function parseFeedDate(raw: string | null | undefined): number | null {
  if (!raw) return null;
  const text = raw.trim().replace(/\s+/g, " ");
  if (text === "") return null;
  const parsed = parseIso(text) ?? parseRfc822(text);
  if (parsed !== null) return parsed;
  const fallback = Date.parse(text);
  return Number.isFinite(fallback) ? fallback : null;
}
