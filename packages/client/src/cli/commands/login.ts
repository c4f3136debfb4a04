import { createExchangeClient } from '../../client.js';
import type { Command } from '../command.js';
import { configPath, readConfig, urlKey, writeConfig } from '../config.js';
import { COMMON_HELP, makeContext, parse, signerFromEnv } from '../context.js';

const USAGE = `Usage: oddsbook-client login [--api-key <key>] [--label <label>] [options]
       oddsbook-client logout [options]

login stores an API key for the exchange URL, so that later commands need none:
  - with --api-key (or ODDSBOOK_API_KEY): checks the key with the exchange and stores it;
  - without one, with ODDSBOOK_PRIVATE_KEY set: signs in with that key (Sign-In with Ethereum), creates an
    API key for the account (labelled --label, default "oddsbook-client") and stores it.
The private key itself is never stored. Keys go to ${configPath()} (ODDSBOOK_CONFIG to move it), mode 0600;
the URL becomes the default for later commands. logout forgets the URL's key (it stays valid: revoke it on
the account page or with the operator API).

Options:
  --label <label>      the new key's label (sign-in only)
${COMMON_HELP}`;

export const loginCommand: Command = {
  name: 'login',
  summary: 'store an API key, or sign in with ODDSBOOK_PRIVATE_KEY and create one',
  usage: USAGE,
  async run(args, io) {
    const { values } = parse(args, { label: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const ctx = makeContext(
      { ...values, 'api-key': values['api-key'] ?? (io.env.ODDSBOOK_API_KEY || undefined) },
      io,
    );
    const given = values['api-key'] || io.env.ODDSBOOK_API_KEY;
    let login: { apiKey: string; address: string; keyId?: string };
    if (given) {
      // The balance route answers the key's account: a wrong key is a 401 here, not at the first trade.
      const balance = await createExchangeClient({ baseUrl: ctx.url, apiKey: given }).getBalance();
      login = { apiKey: given, address: balance.userAddress };
    } else {
      if (!io.env.ODDSBOOK_PRIVATE_KEY)
        throw new Error(
          'give --api-key (or ODDSBOOK_API_KEY), or set ODDSBOOK_PRIVATE_KEY to sign in with it',
        );
      const signer = signerFromEnv(io.env);
      const anonymous = createExchangeClient({ baseUrl: ctx.url, signer });
      const session = await anonymous.signIn('Sign in to the oddsbook exchange from oddsbook-client.');
      const created = await anonymous
        .withCredentials({ sessionToken: session.sessionToken })
        .createApiKey(values.label ?? 'oddsbook-client');
      login = { apiKey: created.apiKey, address: session.address, keyId: created.keyId };
    }
    const config = readConfig();
    config.logins[urlKey(ctx.url)] = login;
    config.defaultUrl = urlKey(ctx.url);
    writeConfig(config);
    if (ctx.json)
      io.out(JSON.stringify({ url: ctx.url, address: login.address, keyId: login.keyId ?? null }));
    else
      io.out(
        `Logged in to ${ctx.url} as ${login.address}${login.keyId ? ` (new API key ${login.keyId})` : ''}; key stored in ${configPath()}.`,
      );
    return 0;
  },
};

export const logoutCommand: Command = {
  name: 'logout',
  summary: 'forget the stored API key of the exchange URL',
  usage: USAGE,
  async run(args, io) {
    const { values } = parse(args, {});
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    const ctx = makeContext(values, io);
    const config = readConfig();
    const had = urlKey(ctx.url) in config.logins;
    delete config.logins[urlKey(ctx.url)];
    if (config.defaultUrl === urlKey(ctx.url)) delete config.defaultUrl;
    writeConfig(config);
    io.out(had ? `Forgot the API key of ${ctx.url}.` : `No API key was stored for ${ctx.url}.`);
    return 0;
  },
};
