/**
 * For the admin tests: a client of the running service with a cookie jar, that signs in through
 * the real form, reads the CSRF token from the pages it gets, and can send what an attacker would
 * (another Origin, no token, a planted cookie).
 */
import assert from "node:assert/strict";
import { Agent, FormData, fetch, type Headers } from "undici";

export interface Answer {
  status: number;
  location: string | null;
  headers: Headers;
  body: string;
}

export class AdminClient {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that held a form. */
  token = "";

  readonly #dispatcher: Agent | undefined;

  /** `from`: the local address to connect from (127.0.0.x), as a client at another address. */
  constructor(base: string, from?: string) {
    this.base = base;
    this.#dispatcher = from === undefined ? undefined : new Agent({ localAddress: from });
  }

  #remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  #cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  }

  async get(path: string): Promise<Answer> {
    const res = await fetch(this.base + path, {
      redirect: "manual",
      headers: this.#cookieHeader(),
      dispatcher: this.#dispatcher,
    });
    this.#remember(res.headers);
    const body = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) this.token = token;
    return { status: res.status, location: res.headers.get("location"), headers: res.headers, body };
  }

  /**
   * POSTs a form. By default with this site's Origin and the last token seen; `origin: null` sends
   * neither Origin nor Referer, `csrf: null` no token.
   */
  async post(
    path: string,
    fields: Record<string, string | string[]> = {},
    opts: { origin?: string | null; referer?: string; csrf?: string | null } = {},
  ): Promise<Answer> {
    const form = new URLSearchParams();
    const csrf = opts.csrf === undefined ? this.token : opts.csrf;
    if (csrf !== null) form.append("csrf", csrf);
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      ...this.#cookieHeader(),
    };
    const origin = opts.origin === undefined ? this.base : opts.origin;
    if (origin !== null) headers.origin = origin;
    if (opts.referer) headers.referer = opts.referer;
    const res = await fetch(this.base + path, {
      method: "POST",
      redirect: "manual",
      headers,
      body: form,
      dispatcher: this.#dispatcher,
    });
    this.#remember(res.headers);
    const body = await res.text();
    const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) this.token = token;
    return { status: res.status, location: res.headers.get("location"), headers: res.headers, body };
  }

  /** POSTs a multipart form (a file upload) with this site's Origin and the last token seen. */
  async postFile(path: string, field: string, filename: string, content: string): Promise<Answer> {
    const form = new FormData();
    form.append("csrf", this.token);
    form.append(field, new Blob([content], { type: "text/xml" }), filename);
    const res = await fetch(this.base + path, {
      method: "POST",
      redirect: "manual",
      headers: { origin: this.base, ...this.#cookieHeader() },
      body: form,
      dispatcher: this.#dispatcher,
    });
    this.#remember(res.headers);
    const body = await res.text();
    return { status: res.status, location: res.headers.get("location"), headers: res.headers, body };
  }

  /** Signs in through the form; returns the POST's answer (303 on success). */
  async signIn(name: string, password: string): Promise<Answer> {
    const form = await this.get("/admin/sign-in");
    assert.equal(form.status, 200);
    const answer = await this.post("/admin/sign-in", { name, password, next: "/admin" });
    if (answer.status === 303) await this.get("/admin");
    return answer;
  }

  session(): string | undefined {
    return this.cookies.get("feed_admin");
  }
}

/** The text of the page's form error (the alert above the fields), or undefined. */
export function formErrorText(body: string): string | undefined {
  return /<p class="field-error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
}
