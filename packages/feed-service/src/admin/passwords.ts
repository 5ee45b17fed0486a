/**
 * Administrators' passwords (spec §5.5): at least 12 characters, stored only as a memory-hard
 * scrypt hash (node:crypto, RFC 7914) with a per-user random salt. The parameters travel in the
 * stored text, so hashes made today still check after the defaults grow.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { badArgument } from "../errors.js";

/**
 * N = 2^15, r = 8, p = 1: 32 MiB (128·N·r bytes) per hash. Percival's scrypt paper gives N = 2^14
 * with r = 8 for interactive logins; one step up, as hardware has grown since.
 */
const params = { N: 32_768, r: 8, p: 1 } as const;
const keyLength = 32;
export const minimumPasswordLength = 12;
/** Longer texts are refused before hashing: scrypt's cost should be the only cost of a try. */
export const maximumPasswordLength = 1024;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** A password as typed, checked for length (the message never repeats it). */
export function checkPassword(password: string): string {
  const length = [...password].length;
  if (length < minimumPasswordLength) {
    throw badArgument(`The password must be at least ${minimumPasswordLength} characters; it has ${length}.`);
  }
  if (length > maximumPasswordLength) {
    throw badArgument(`The password must be at most ${maximumPasswordLength} characters; it has ${length}.`);
  }
  return password;
}

/** `scrypt$N$r$p$<salt base64>$<key base64>` for a password already checked. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(checkPassword(password), salt, params.N, params.r, params.p);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** A hash nobody's password matches, checked for unknown names so that they cost what known ones do. */
const decoy = `scrypt$${params.N}$${params.r}$${params.p}$${randomBytes(16).toString("base64")}$${randomBytes(keyLength).toString("base64")}`;

/**
 * True when `password` matches `stored`; with `stored` undefined (no such user) the same work is
 * done against a decoy and false is answered.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [kind, n, r, p, salt, key] = (stored ?? decoy).split("$");
  if (kind !== "scrypt" || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, "base64");
  // Over-long input is cut rather than skipped, so that its answer takes the usual time.
  const actual = await derive(
    password.slice(0, maximumPasswordLength * 2),
    Buffer.from(salt, "base64"),
    Number(n),
    Number(r),
    Number(p),
  );
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
