// Shared by the tests: a running emulator on 127.0.0.1:0 with one credential usable by both
// methods, a private key file for the JWT method, and an isolated home folder.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmulatorOptions } from "../emulator/emulator-options.js";
import { PlatformEmulator } from "../emulator/platform-emulator.js";

export interface EmulatorFixture {
  emulator: PlatformEmulator;
  url: string;
  clientId: string;
  clientSecret: string;
  /** A second secret, accepted too when the fixture was started with `rotation: true`. */
  nextSecret: string;
  orgId: string;
  technicalAccountId: string;
  privateKeyPem: string;
  privateKeyFile: string;
  /** A temp folder with home/, config/, cache/ and work/ (empty cwd). */
  dir: string;
  /** Environment that points HOME and the XDG folders into `dir` and holds nothing else. */
  env: Record<string, string>;
  close(): Promise<void>;
}

let keyPair: { privateKeyPem: string } | undefined;

function testKey(): string {
  keyPair ??= {
    privateKeyPem: generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString(),
  };
  return keyPair.privateKeyPem;
}

export async function startEmulator(
  opts: Partial<EmulatorOptions> = {},
  fixture: { rotation?: boolean } = {},
): Promise<EmulatorFixture> {
  const dir = mkdtempSync(join(tmpdir(), "platform-auth-test-"));
  const privateKeyPem = testKey();
  const privateKeyFile = join(dir, "private.key");
  writeFileSync(privateKeyFile, privateKeyPem, { mode: 0o600 });
  const cred = {
    clientId: "emu0client0id0a1b2c3d4e5f6",
    clientSecret: `p8e-SECRET-${Math.random().toString(36).slice(2)}-x9`,
    orgId: "0A1B2C3D4E5F60708090A0B0@AdobeOrg",
    technicalAccountId: "F00D1234567890ABCDEF1234@techacct.adobe.com",
    publicKey: privateKeyPem,
  };
  const nextSecret = `p8e-NEXT-${Math.random().toString(36).slice(2)}-y7`;
  const emulator = new PlatformEmulator({
    credentials: [{ ...cred, clientSecrets: fixture.rotation ? [nextSecret] : [] }],
    ...opts,
  });
  const url = await emulator.start();
  const env = {
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_CACHE_HOME: join(dir, "cache"),
    PATH: process.env.PATH ?? "",
  };
  return {
    emulator,
    url,
    clientId: cred.clientId,
    clientSecret: cred.clientSecret,
    nextSecret,
    orgId: cred.orgId,
    technicalAccountId: cred.technicalAccountId,
    privateKeyPem,
    privateKeyFile,
    dir,
    env,
    close: async () => {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The base64 body of a PEM key, the part that must never be printed. */
export function keyBody(pem: string): string[] {
  return pem
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("-----"))
    .filter((l) => l.length >= 40);
}
