/**
 * Stable codes for every failure the relay reports to its caller. Each maps to one exit code of
 * the command line: argument problems exit 2 before anything listens, problems met while starting
 * the listener exit 1 (see the README's "Errors" table, checked by a test).
 */
export const relayErrorCodes = {
  TCP_RELAY_BAD_ARGUMENT: 2,
  TCP_RELAY_UNKNOWN_HOST: 2,
  TCP_RELAY_LOG_FILE: 2,
  TCP_RELAY_PORT_IN_USE: 1,
  TCP_RELAY_LISTEN_FAILED: 1,
} as const;

export type RelayErrorCode = keyof typeof relayErrorCodes;

/**
 * The one error type of the relay: a code for machines, a message for people.
 *
 * @example
 * throw new RelayError("TCP_RELAY_BAD_ARGUMENT", 'remoteport must be a number from 1 to 65535; got "http"');
 */
export class RelayError extends Error {
  readonly code: RelayErrorCode;
  constructor(code: RelayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RelayError";
    this.code = code;
  }

  /** The process exit code the command line uses for this error. */
  get exitCode(): number {
    return relayErrorCodes[this.code];
  }
}
