import { type ParseArgsConfig, parseArgs } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { createExchangeClient, type ExchangeClient } from '../client.js';
import { readConfig, urlKey } from './config.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A mistake in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every command takes. */
export const COMMON_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const COMMON_HELP = `Common options:
  --url <base url>     the exchange (default: ODDSBOOK_URL, else the URL of the last login, else ${DEFAULT_URL})
  --api-key <key>      the API key (default: ODDSBOOK_API_KEY, else the one login stored for the URL)
  --json               machine-readable output (one JSON document, or one JSON line per update)
  --help               this text`;

export type Output = { out: (line: string) => void; err: (line: string) => void };

export type Context = Output & {
  url: string;
  apiKey: string | undefined;
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** Stops a long-running command (Ctrl-C). */
  signal: AbortSignal;
};

type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : string;
};

/** Parses a command's arguments; an unknown option or a missing value is a UsageError. */
export function parse<O extends Options>(
  args: readonly string[],
  options: O,
  allowPositionals = false,
): { values: Values<O & typeof COMMON_OPTIONS>; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: [...args],
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals,
      strict: true,
    });
    return { values: parsed.values as Values<O & typeof COMMON_OPTIONS>, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const nonEmpty = (value: string | undefined) => (value ? value : undefined);

export function makeContext(
  values: { url?: string | undefined; 'api-key'?: string | undefined; json?: boolean | undefined },
  io: Output & { env: NodeJS.ProcessEnv; signal: AbortSignal },
): Context {
  const config = readConfig();
  const url = urlKey(
    nonEmpty(values.url) ?? nonEmpty(io.env.ODDSBOOK_URL) ?? config.defaultUrl ?? DEFAULT_URL,
  );
  const apiKey =
    nonEmpty(values['api-key']) ?? nonEmpty(io.env.ODDSBOOK_API_KEY) ?? config.logins[url]?.apiKey;
  return { ...io, url, apiKey, json: values.json === true };
}

/** The private key of ODDSBOOK_PRIVATE_KEY as a signer (never taken from a flag: it would stay in the shell's history). */
export function signerFromEnv(env: NodeJS.ProcessEnv) {
  const key = env.ODDSBOOK_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new Error('set ODDSBOOK_PRIVATE_KEY to a 0x-prefixed 32-byte hex key');
  return privateKeyToAccount(key as `0x${string}`);
}

/** A client for the command: `key` needs an API key, `sign` the private key too. */
export function clientFor(ctx: Context, needs: { key?: boolean; sign?: boolean } = {}): ExchangeClient {
  if (needs.key && !ctx.apiKey)
    throw new Error(`no API key for ${ctx.url}: run \`oddsbook-client login\`, or set ODDSBOOK_API_KEY`);
  return createExchangeClient({
    baseUrl: ctx.url,
    ...(ctx.apiKey ? { apiKey: ctx.apiKey } : {}),
    ...(needs.sign ? { signer: signerFromEnv(ctx.env) } : {}),
  });
}

/** Prints a value as JSON, or as text. */
export function print(ctx: Context, value: unknown, text: () => string): void {
  ctx.out(
    ctx.json ? JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) : text(),
  );
}

/** A whole number of base units (`--size`) or a token amount (`--stake 2.5`). */
export function amountOption(
  values: { size?: string | undefined; stake?: string | undefined },
  what = 'stake',
): bigint {
  if (values.size !== undefined) {
    if (!/^[1-9][0-9]*$/.test(values.size))
      throw new UsageError('--size is a whole number of base units above 0');
    return BigInt(values.size);
  }
  if (values.stake !== undefined) {
    const match = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,6}))?$/.exec(values.stake);
    if (!match) throw new UsageError('--stake is a token amount with at most 6 decimals, e.g. 2.5');
    const units = BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0') || '0');
    if (units === 0n) throw new UsageError('--stake must be above 0');
    return units;
  }
  throw new UsageError(`give the ${what}: --stake <USDC> or --size <base units>`);
}
