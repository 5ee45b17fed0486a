import type { IncomingMessage } from "node:http";

/** Token requests and admin commands are small; anything larger is refused, not buffered. */
export const MAX_BODY = 64 * 1024;

/** The request body as text; `undefined` when it exceeds {@link MAX_BODY}. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The token endpoints take urlencoded or multipart bodies; the fetch API's parser reads both. */
export async function readForm(req: IncomingMessage): Promise<Map<string, string> | string> {
  const type = req.headers["content-type"] ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) {
    return "Content-Type must be application/x-www-form-urlencoded or multipart/form-data";
  }
  const body = await readBody(req);
  if (body === undefined) return `request body is larger than ${MAX_BODY} bytes`;
  try {
    const form = await new Request("http://emulator.invalid/", {
      method: "POST",
      headers: { "content-type": type },
      body,
    }).formData();
    const out = new Map<string, string>();
    form.forEach((v, k) => {
      if (typeof v === "string") out.set(k, v);
    });
    return out;
  } catch {
    return "request body could not be parsed as a form";
  }
}
