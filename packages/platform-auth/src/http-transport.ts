import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import {
  Agent,
  type Dispatcher,
  EnvHttpProxyAgent,
  FormData as UndiciFormData,
  fetch as undiciFetch,
} from "undici";
import { PlatformAuthError } from "./errors.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What every outgoing request goes through: undici's fetch with one shared connection pool. */
export interface HttpTransport {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

/**
 * Builds the transport. TLS verification is always on — `rejectUnauthorized: true` is set
 * explicitly so that even `NODE_TLS_REJECT_UNAUTHORIZED=0` in the environment cannot turn it off —
 * and there is no option to disable it. `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` (either case)
 * are honoured; an extra CA file is added to the system's roots, not put in their place.
 */
export function createHttpTransport(
  opts: { env?: Env; caFile?: string; attemptTimeoutMs?: number } = {},
): HttpTransport {
  const env = opts.env ?? process.env;
  const tls: { rejectUnauthorized: true; ca?: string[] } = { rejectUnauthorized: true };
  if (opts.caFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(opts.caFile, "utf8");
    } catch (err) {
      throw new PlatformAuthError("PA_CONFIG_INVALID", `CA file ${opts.caFile} could not be read`, {
        cause: err,
      });
    }
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
      throw new PlatformAuthError("PA_CONFIG_INVALID", `CA file ${opts.caFile} holds no PEM certificate`);
    }
    tls.ca = [...rootCertificates, pem];
  }
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== "");
  const httpProxy = pick("HTTP_PROXY", "http_proxy");
  const httpsProxy = pick("HTTPS_PROXY", "https_proxy");
  const common = {
    // Bounded per origin: a burst of calls queues instead of opening a socket each.
    connections: 32,
    headersTimeout: opts.attemptTimeoutMs ?? 30_000,
    bodyTimeout: opts.attemptTimeoutMs ?? 30_000,
    connect: tls,
  };
  // Without a proxy, a plain Agent: the proxy agent parses every request's origin against NO_PROXY,
  // which showed in the 10,000-call benchmark.
  const dispatcher: Dispatcher =
    httpProxy === undefined && httpsProxy === undefined
      ? new Agent(common)
      : new EnvHttpProxyAgent({
          ...common,
          httpProxy,
          httpsProxy,
          noProxy: pick("NO_PROXY", "no_proxy"),
          requestTls: tls,
          proxyTls: tls,
        });
  return {
    // undici's own fetch, paired with its own dispatcher (mixing versions with the global fetch
    // is not supported). The types differ only nominally from the DOM ones.
    fetch: (url, init) => {
      const body = init.body instanceof FormData ? toUndiciForm(init.body) : init.body;
      return undiciFetch(url, { ...(init as object), body, dispatcher } as Parameters<
        typeof undiciFetch
      >[1]) as unknown as Promise<Response>;
    },
    close: () => dispatcher.close(),
  };
}

/** undici's fetch encodes only its own FormData as multipart; the global one is copied over. */
function toUndiciForm(form: FormData): UndiciFormData {
  const out = new UndiciFormData();
  form.forEach((value, name) => {
    out.append(name, value as string);
  });
  return out;
}
