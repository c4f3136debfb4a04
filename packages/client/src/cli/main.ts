import { createRequire } from 'node:module';
import { ExchangeApiError, ExchangeNetworkError, OrderCheckError } from '../errors.js';
import { RealtimeError } from '../realtime/connection.js';
import type { Command, CommandIo } from './command.js';
import { exampleCommand } from './commands/example.js';
import { bookCommand, watchCommand } from './commands/live.js';
import { loginCommand, logoutCommand } from './commands/login.js';
import {
  balanceCommand,
  fillsCommand,
  marketsCommand,
  ordersCommand,
  positionsCommand,
  tradesCommand,
} from './commands/reads.js';
import { signOrderCommand } from './commands/sign-order.js';
import { cancelAllCommand, cancelCommand, deployProxyCommand, placeCommand } from './commands/trading.js';
import { COMMON_HELP, UsageError } from './context.js';

export const COMMANDS: readonly Command[] = [
  loginCommand,
  logoutCommand,
  marketsCommand,
  bookCommand,
  placeCommand,
  cancelCommand,
  cancelAllCommand,
  ordersCommand,
  fillsCommand,
  tradesCommand,
  positionsCommand,
  balanceCommand,
  deployProxyCommand,
  watchCommand,
  signOrderCommand,
  exampleCommand,
];

/** The version of @oddsbook/client (its package.json is two levels up from src/cli/ and dist/cli/). */
function version(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: oddsbook-client <command> [options]
       oddsbook-client <command> --help
       oddsbook-client --version

A client of the oddsbook exchange. Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Credentials: an API key (login stores one per exchange URL; or --api-key, ODDSBOOK_API_KEY); orders are
signed with the private key in ODDSBOOK_PRIVATE_KEY (never stored). Exit codes: 0 done, 1 failed,
2 wrong usage, 3 the exchange refused an order or a cancel.

${COMMON_HELP}`;
}

/** Runs one command line; resolves with the exit code. Errors are printed, never thrown. */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(`oddsbook-client ${version()}`);
    return 0;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(usage());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`oddsbook-client: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (thrown) {
    // A live command's connection fails with the REST refusal of its token as the cause (a bad key).
    const error =
      thrown instanceof RealtimeError && thrown.cause instanceof ExchangeApiError ? thrown.cause : thrown;
    if (error instanceof UsageError) {
      io.err(`oddsbook-client ${command.name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (error instanceof ExchangeApiError) {
      io.err(`oddsbook-client: ${error.message}\n  what to do: ${error.hint.action}`);
      return error.code === 'TOTAL_BET_SIZE_TOO_LOW' ? 3 : 1;
    }
    if (error instanceof OrderCheckError) {
      io.err(`oddsbook-client: refused before posting: ${error.message}`);
      return 3;
    }
    if (error instanceof ExchangeNetworkError) {
      io.err(`oddsbook-client: ${error.message}: is the exchange running at that URL?`);
      return 1;
    }
    io.err(`oddsbook-client: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
