/**
 * Where a command, the cluster supervisor and the background ingest write their lines: standard
 * output and error in a process, captured buffers in tests.
 */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
