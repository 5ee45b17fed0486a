/**
 * Reading a new password for `users add|passwd`: from standard input's first line
 * (--password-stdin), or typed at the terminal twice with echo off. The text is never written
 * anywhere; the prompt goes to standard error so that standard output stays the command's answer.
 */
import { badArgument } from "../errors.js";
import type { Output } from "./output.js";

/** Standard input is read up to this many bytes: a password line, not a file. */
const stdinLimit = 64 * 1024;

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > stdinLimit || chunk.includes(0x0a)) break;
  }
  const text = Buffer.concat(chunks).toString("utf8");
  const end = text.search(/\r?\n/);
  return end === -1 ? text : text.slice(0, end);
}

/** One line typed with echo off; Ctrl-C or Ctrl-D give up. */
function typedLine(prompt: string, output: Output): Promise<string> {
  const stdin = process.stdin;
  output.err(prompt);
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      output.err("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(badArgument("No password was given."));
        if (ch === "\u007f" || ch === "\b") typed = [...typed].slice(0, -1).join("");
        else typed += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/**
 * @example
 * const password = await readPassword(values["password-stdin"] === true, context.output);
 */
export async function readPassword(fromStdin: boolean, output: Output): Promise<string> {
  if (fromStdin) return firstLineOfStdin();
  if (!process.stdin.isTTY) {
    throw badArgument(
      "There is no terminal to ask for the password on; give it on standard input with --password-stdin.",
    );
  }
  const first = await typedLine("New password (12 characters or more): ", output);
  const again = await typedLine("The same password again: ", output);
  if (first !== again) throw badArgument("The two passwords typed differ; nothing was changed.");
  return first;
}
