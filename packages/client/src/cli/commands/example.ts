import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command.js';
import { UsageError } from '../context.js';

const EXAMPLES = {
  'market-maker': 'two-sided quotes around a fair price, re-quoted on fills, heartbeat, cancel-all on exit',
  taker: "takes the best offer on each outcome in turn, from the market's live book",
  'parlay-quoter': "offers on each parlay request: the legs' probabilities multiplied, plus a margin",
} as const;

const USAGE = `Usage: oddsbook-client example <name> [the example's options]

Runs an example bot that ships with the SDK (their TypeScript sources are beside them, in
node_modules/@oddsbook/client/dist/examples/, to read and copy). Examples:
${Object.entries(EXAMPLES)
  .map(([name, what]) => `  ${name.padEnd(13)} ${what}`)
  .join('\n')}

They read ODDSBOOK_URL (default http://127.0.0.1:8080) and trade as the account of ODDSBOOK_API_KEY and
ODDSBOOK_PRIVATE_KEY; against a local exchange, ODDSBOOK_ADMIN_TOKEN instead makes them a new funded account.
Try: ODDSBOOK_ADMIN_TOKEN=... oddsbook-client example market-maker, then the taker in another terminal.
Each example's own options are at the top of its source (--market <hash>, ...).`;

export const exampleCommand: Command = {
  name: 'example',
  summary: 'run an example bot (market-maker, taker, parlay-quoter)',
  usage: USAGE,
  async run(args, io) {
    const [name, ...rest] = args;
    if (name === undefined || name === '--help' || name === '-h') {
      (name === undefined ? io.err : io.out)(USAGE);
      return name === undefined ? 2 : 0;
    }
    if (!(name in EXAMPLES))
      throw new UsageError(`no example "${name}": ${Object.keys(EXAMPLES).join(', ')}`);
    const file = fileURLToPath(new URL(`../../examples/${name}.js`, import.meta.url));
    if (!existsSync(file))
      throw new Error(
        `the examples are built when the SDK is packed; in the repository run npx tsx examples/${name}.ts`,
      );
    // The example reads its own options from the command line.
    process.argv = [process.argv[0]!, file, ...rest];
    await import(file);
    // It runs on by its timers and connections; its own exit ends the process.
    await new Promise<never>(() => undefined);
    return 0;
  },
};
