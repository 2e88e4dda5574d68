/**
 * Ends a command whose cycle found the Relay API key refused (HTTP 401/403, src/relay/authRefusal.ts): exit 2
 * (README "Exit codes": bad configuration) with one line naming `relay.apiKey` and the fix. The command's own
 * output (the report) is printed first.
 */
import { authRefusalLine, type RelayAuthRefusal } from '../relay/authRefusal.ts';
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/**
 * @param report a cycle report (or anything carrying its `authRefusal`)
 * @throws CliError (exit 2) when `report.authRefusal` is set; returns otherwise
 */
export function endOnKeyRefusal(report: { authRefusal?: RelayAuthRefusal }): void {
  if (report.authRefusal !== undefined) throw new CliError(authRefusalLine(report.authRefusal), EXIT_USAGE);
}
