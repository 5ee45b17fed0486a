// Collects everything a test file printed or produced as an error, and checks that no secret is in
// it. Tokens are allowed only where a command exists to print one.
import { inspect } from "node:util";

export interface Captured {
  where: string;
  text: string;
  /** True for the standard output of `token`, `headers` and `jwt`. */
  tokensAllowed?: boolean;
}

export class SecretSweep {
  readonly captured: Captured[] = [];

  add(where: string, text: string, tokensAllowed = false): void {
    this.captured.push({ where, text, tokensAllowed });
  }

  /** Records an error the way a user could see it: message, String(), inspect() and JSON. */
  addError(where: string, err: unknown): void {
    this.add(`${where} (message)`, err instanceof Error ? err.message : String(err));
    this.add(`${where} (inspect)`, inspect(err, { depth: 5 }));
    this.add(`${where} (json)`, JSON.stringify(err) ?? "");
  }

  /** Returns the places where a secret was found, as "where: which". */
  leaks(secrets: { name: string; value: string; isToken?: boolean }[]): string[] {
    const out: string[] = [];
    for (const c of this.captured) {
      for (const s of secrets) {
        if (s.value.length < 8) throw new Error(`secret ${s.name} is too short to grep for`);
        if (s.isToken && c.tokensAllowed) continue;
        if (c.text.includes(s.value)) out.push(`${c.where}: ${s.name}`);
      }
    }
    return out;
  }
}
