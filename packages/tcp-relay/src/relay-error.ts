/** What the registry says of each code (the same shape in every package of the toolkit). */
export interface ErrorCodeInfo {
  /** What the code means, for people (the README's table repeats it; a test checks). */
  readonly description: string;
  /** The command line's exit code for it. */
  readonly exitCode: number;
}

/**
 * Stable codes for every failure the relay reports to its caller, with their wire form: argument
 * problems exit 2 before anything listens, problems met while starting the listener exit 1.
 */
export const relayErrorCodes = {
  TCP_RELAY_BAD_ARGUMENT: {
    description:
      "unknown option, missing or non-numeric port, port outside 1–65535, option without its value",
    exitCode: 2,
  },
  TCP_RELAY_UNKNOWN_HOST: { description: "`<host>` cannot be resolved", exitCode: 2 },
  TCP_RELAY_LOG_FILE: { description: "the log file cannot be opened for appending", exitCode: 2 },
  TCP_RELAY_FAULTS_FILE: {
    description:
      "the `-faults` file cannot be read, is not JSON, or holds a key or value that is not a fault",
    exitCode: 2,
  },
  TCP_RELAY_PORT_IN_USE: { description: "the local port is already in use", exitCode: 1 },
  TCP_RELAY_LISTEN_FAILED: {
    description: "listening failed otherwise (address not available, permission)",
    exitCode: 1,
  },
} as const satisfies Record<string, ErrorCodeInfo>;

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
    return relayErrorCodes[this.code].exitCode;
  }
}
