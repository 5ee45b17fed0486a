export { type AccessToken, type AccessTokenClaims, decodeTokenClaims } from "./access-token.js";
export type { CliIo } from "./cli/cli-io.js";
export { main, usage } from "./cli.js";
export { saveProfile } from "./config-file-writer.js";
export { type ConsoleCredential, readConsoleProject } from "./console-project.js";
export { type DoctorOptions, runDoctor } from "./doctor/doctor.js";
export type { DoctorReport, DoctorStep, StepStatus } from "./doctor/doctor-report.js";
export type { EmulatorCredential, EmulatorOptions, InjectedFailure } from "./emulator/emulator-options.js";
export { type EmulatorStats, PlatformEmulator } from "./emulator/platform-emulator.js";
export { type ParsedErrorBody, parseErrorBody } from "./error-body.js";
export {
  ERROR_CODES,
  type ErrorCodeInfo,
  PlatformAuthError,
  type PlatformAuthErrorCode,
  redactSecrets,
} from "./errors.js";
export { FAILURE_REASONS, type FailureReason, type FailureReasonCode } from "./failure-reasons.js";
export {
  GLOBAL_CLASSES_PATH,
  type GlobalClass,
  type GlobalClassesPage,
  runTestCall,
  XED_FULL_JSON,
  XED_ID_JSON,
} from "./global-classes.js";
export { buildJwtAssertion, type JwtAssertionInput, loadPrivateKey } from "./jwt-assertion.js";
export { type JwtCredentials, JwtTokenProvider } from "./jwt-token-provider.js";
export {
  type OAuthCredentials,
  OAuthTokenProvider,
  type SecretRejectedEvent,
} from "./oauth-token-provider.js";
export {
  type ClientEvent,
  type PlatformBody,
  PlatformClient,
  type PlatformClientOptions,
  type PlatformRequestInit,
} from "./platform-client.js";
export type { RetryEvent, RetryOptions } from "./retry-policy.js";
export {
  type AuthMethod,
  DEFAULT_AUTH_URL,
  DEFAULT_BASE_URL,
  DEFAULT_METASCOPES,
  DEFAULT_SCOPES,
  type ResolvedSettings,
  type SettingsInput,
} from "./settings.js";
export { type ResolveSettingsOptions, resolveSettings } from "./settings-resolver.js";
export { TokenCache, type TokenCacheOptions } from "./token-cache.js";
export { TokenFileStore, tokenCacheKey } from "./token-file-store.js";
export type { TokenProvider } from "./token-provider.js";
export { type CredentialUsage, type HourCounts, readUsageFile, UsageMeter } from "./usage-meter.js";
