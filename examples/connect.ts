/**
 * What both examples need: a client for an account that can trade, and a market.
 *
 * The account is yours (ODDSBOOK_API_KEY and ODDSBOOK_PRIVATE_KEY), or, against a local exchange, a new one
 * the example makes with the operator token (ODDSBOOK_ADMIN_TOKEN: `npm start` keeps it in data/admin-token):
 * a fresh key, an API key, a deployed proxy wallet and 1,000 test USDC from the faucet.
 */
import {
  createAdminClient,
  createExchangeClient,
  type ExchangeClient,
  type Market,
  parseTokenAmount,
} from '@oddsbook/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export const log = (who: string, line: string) => console.log(`[${who}] ${line}`);

export async function connect(who: string): Promise<ExchangeClient> {
  const url = process.env.ODDSBOOK_URL || 'http://127.0.0.1:8080';
  const {
    ODDSBOOK_API_KEY: apiKey,
    ODDSBOOK_PRIVATE_KEY: privateKey,
    ODDSBOOK_ADMIN_TOKEN: adminToken,
  } = process.env;
  if (apiKey && privateKey) {
    const client = createExchangeClient({
      baseUrl: url,
      apiKey,
      signer: privateKeyToAccount(privateKey as `0x${string}`),
    });
    log(who, `account ${client.signer!.address} at ${url}`);
    return client;
  }
  if (!adminToken)
    throw new Error(
      'set ODDSBOOK_API_KEY and ODDSBOOK_PRIVATE_KEY (your account), or ODDSBOOK_ADMIN_TOKEN (a local exchange: a new account is made)',
    );
  const signer = privateKeyToAccount(generatePrivateKey());
  const admin = createAdminClient({ baseUrl: url, adminToken });
  const { apiKey: newKey } = await admin.createApiKey({ address: signer.address, label: who });
  const client = createExchangeClient({ baseUrl: url, apiKey: newKey, signer });
  let proxy = await client.deployProxy();
  while (proxy.pending) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy = await client.getProxy();
  }
  if (!proxy.deployed) throw new Error(`the proxy wallet was not deployed (${proxy.state})`);
  await admin.faucet(signer.address, parseTokenAmount('1000'));
  // A throwaway local account: its key is printed so that you can look at it with oddsbook-client.
  log(who, `new account ${signer.address} with 1000 USDC at ${url} (ODDSBOOK_API_KEY=${newKey})`);
  return client;
}

/** The market named, or the first active one (both examples pick the same). */
export async function pickMarket(client: ExchangeClient, given: string | undefined): Promise<Market> {
  if (given) {
    const market = await client.market(given);
    if (!market) throw new Error(`no market ${given}`);
    return market;
  }
  for await (const market of client.activeMarkets({ pageSize: 10 })) return market;
  throw new Error('no active market: start the exchange with demo data (npm start), or create one');
}

/** Runs `stop` once on Ctrl-C or SIGTERM, then exits. */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`${signal}: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}
