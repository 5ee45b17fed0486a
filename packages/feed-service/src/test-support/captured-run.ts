/**
 * For tests: runs the CLI in this process with an empty environment and collects what it prints,
 * so a test can check exit code, stdout and stderr without starting a process.
 */
import { main } from "../cli.js";

/** The environment of an operator who allows fetches from private addresses (test feeds are local). */
export const localFeedsEnv = { FEED_SERVICE_ALLOW_PRIVATE_FETCH: "1" };

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `feed-service <argv>` in process; `stopSignal` stands in for SIGINT/SIGTERM; `env` is the
 * environment the command sees (empty unless given).
 *
 * @example
 * const { code, stderr } = await runCaptured(["ingest", "--database", path]);
 */
export async function runCaptured(
  argv: string[],
  stopSignal?: Promise<string>,
  env: Record<string, string> = {},
): Promise<CapturedRun> {
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
  const code = await main(argv, { env, output, stopSignal });
  return { code, stdout, stderr };
}
