/**
 * For tests: runs the CLI in this process with an empty environment and collects what it prints,
 * so a test can check exit code, stdout and stderr without starting a process.
 */
import { main } from "../cli.js";

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `feed-service <argv>` in process; `stopSignal` stands in for SIGINT/SIGTERM.
 *
 * @example
 * const { code, stderr } = await runCaptured(["ingest", "--database", path]);
 */
export async function runCaptured(argv: string[], stopSignal?: Promise<string>): Promise<CapturedRun> {
  let stdout = "";
  let stderr = "";
  const output = {
    out: (text: string) => {
      stdout += text;
    },
    err: (text: string) => {
      stderr += text;
    },
  };
  const code = await main(argv, { env: {}, output, stopSignal });
  return { code, stdout, stderr };
}
