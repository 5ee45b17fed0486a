/** Where a CLI run reads and writes; tests pass their own to capture output and isolate HOME. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Ends long-running commands (the emulator); default: SIGINT / SIGTERM. */
  signal?: AbortSignal;
}

export function processIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
  };
}
