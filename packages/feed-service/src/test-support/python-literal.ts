/**
 * Reads the Python literals of feedparser's `Expect:` lines (strings with their escapes and `+`
 * concatenation, integers, tuples, True/False/None), so that its conformance corpus can be
 * checked against our parser without running Python.
 */
export type PyValue = string | number | boolean | null | PyValue[];

export class PyLiteralReader {
  #pos = 0;
  readonly #src: string;
  constructor(src: string) {
    this.#src = src;
  }

  /** Reads one value (with string concatenation) and returns it with what follows. */
  static read(src: string): { value: PyValue; rest: string } {
    const r = new PyLiteralReader(src);
    const value = r.#expression();
    return { value, rest: src.slice(r.#pos) };
  }

  #skip() {
    while (this.#pos < this.#src.length && /\s/.test(this.#src[this.#pos]!)) this.#pos++;
  }

  #expression(): PyValue {
    let value = this.#atom();
    for (;;) {
      this.#skip();
      if (this.#src[this.#pos] !== "+" || typeof value !== "string") return value;
      this.#pos++;
      const next = this.#atom();
      if (typeof next !== "string") throw new Error("cannot add a non-string");
      value += next;
    }
  }

  #atom(): PyValue {
    this.#skip();
    const rest = this.#src.slice(this.#pos);
    const str = /^([uUbBrR]{0,2})(['"])/.exec(rest);
    if (str) return this.#string(str[1]!.toLowerCase().includes("r"), str[0].length, str[2]!);
    if (rest.startsWith("(") || rest.startsWith("[")) return this.#tuple(rest[0] === "(" ? ")" : "]");
    const num = /^-?\d+(\.\d+)?/.exec(rest);
    if (num) {
      this.#pos += num[0].length;
      return Number(num[0]);
    }
    const word = /^(True|False|None)\b/.exec(rest);
    if (word) {
      this.#pos += word[0].length;
      return word[1] === "None" ? null : word[1] === "True";
    }
    throw new Error(`unsupported literal at: ${rest.slice(0, 20)}`);
  }

  #tuple(close: string): PyValue[] {
    this.#pos++;
    const items: PyValue[] = [];
    for (;;) {
      this.#skip();
      if (this.#src[this.#pos] === close) {
        this.#pos++;
        return items;
      }
      items.push(this.#expression());
      this.#skip();
      if (this.#src[this.#pos] === ",") this.#pos++;
    }
  }

  #string(raw: boolean, prefixLength: number, quote: string): string {
    const triple = this.#src.startsWith(quote.repeat(3), this.#pos + prefixLength - 1);
    const delim = triple ? quote.repeat(3) : quote;
    this.#pos += prefixLength - 1 + delim.length;
    let out = "";
    while (this.#pos < this.#src.length) {
      if (this.#src.startsWith(delim, this.#pos)) {
        this.#pos += delim.length;
        return out;
      }
      const ch = this.#src[this.#pos]!;
      if (ch === "\\" && !raw) {
        const next = this.#src[this.#pos + 1]!;
        const simple: Record<string, string> = {
          n: "\n",
          t: "\t",
          r: "\r",
          "\\": "\\",
          "'": "'",
          '"': '"',
          "0": "\0",
        };
        if (next in simple) {
          out += simple[next];
          this.#pos += 2;
        } else if (next === "x" || next === "u" || next === "U") {
          const len = next === "x" ? 2 : next === "u" ? 4 : 8;
          out += String.fromCodePoint(
            Number.parseInt(this.#src.slice(this.#pos + 2, this.#pos + 2 + len), 16),
          );
          this.#pos += 2 + len;
        } else {
          out += ch;
          this.#pos++;
        }
      } else {
        out += ch;
        this.#pos++;
      }
    }
    throw new Error("unterminated string");
  }
}
