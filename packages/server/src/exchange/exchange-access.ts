import { randomBytes } from 'node:crypto';
import { ApiKeys } from '../auth/api-keys.js';
import { WebSessions } from '../auth/web-sessions.js';
import { CatalogService } from '../catalog/catalog-service.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../lib/clock.js';
import type { RevocationBroadcast } from '../store/revocation-broadcast.js';
import type { Store } from '../store/store.js';

/** What every node answering HTTP opens on the store, the single process and an API node alike. */
export type ExchangeAccess = {
  /** Sports, leagues, fixtures, markets; `inEngine` answers false until `setInEngine` (trading opens later). */
  readonly catalog: CatalogService;
  readonly apiKeys: ApiKeys;
  readonly webSessions: WebSessions;
  /** HMAC key of realtime connection tokens, kept in the store. */
  readonly realtimeSecret: string;
  setInEngine(inEngine: (marketHash: string) => boolean): void;
  /** Stops hearing other nodes' revocations (the store stays open). */
  close(): Promise<void>;
};

/** A secret of the exchange's own (32 random bytes, base64url), generated at the first start and kept in the store. */
function serverSecret(store: Store, name: string, now: number): Promise<string> {
  return store.secrets.keep(name, randomBytes(32).toString('base64url'), now);
}

/**
 * The catalog, API keys, browser sessions and the server's secrets, and other nodes' revocations (a key
 * revoked, a session signed out there) acting here as if they were this node's.
 */
export async function openExchangeAccess(options: {
  config: Config;
  store: Store;
  shared: boolean;
  clock: Clock;
  openRevocations(options: { onReconnect: () => void }): Promise<RevocationBroadcast>;
  log?: { error(o: object, msg: string): void };
}): Promise<ExchangeAccess> {
  const { config, store, clock } = options;
  let inEngine = (_marketHash: string): boolean => false;
  const catalog = new CatalogService({
    repository: store.catalog,
    clock,
    inEngine: (marketHash) => inEngine(marketHash),
    // A listener's failure never fails the catalog write that triggered it; it is reported here.
    onListenerError: (error) => console.error('catalog change listener failed', error),
  });
  let apiKeys: ApiKeys | undefined;
  const revocations = await options.openRevocations({
    onReconnect: () =>
      void apiKeys?.resync().catch((error) => options.log?.error({ err: error }, 'api keys resync failed')),
  });
  try {
    const keys = await ApiKeys.load(store, revocations);
    apiKeys = keys;
    const realtimeSecret = await serverSecret(store, 'realtime-token', clock.now());
    const webSessions = await WebSessions.open({
      origins: config.siweDomains,
      chainId: config.chainId,
      now: () => clock.now(),
      store: store.webSessions,
      shared: options.shared,
      broadcast: revocations,
      nonceSecret: Buffer.from(await serverSecret(store, 'siwe-nonce', clock.now()), 'base64url'),
    });
    const stopRevocations = revocations.subscribe((revocation) => {
      if (revocation.kind === 'api-key') keys.revokedElsewhere(revocation.id);
      else if (revocation.kind === 'api-key-issued')
        void keys
          .issuedElsewhere(revocation.id)
          .catch((error) => options.log?.error({ err: error }, 'reading a key issued elsewhere failed'));
      else webSessions.forget(revocation.tokenHashes);
    });
    return {
      catalog,
      apiKeys: keys,
      webSessions,
      realtimeSecret,
      setInEngine(fn) {
        inEngine = fn;
      },
      async close() {
        await webSessions.idle();
        stopRevocations();
        await revocations.close();
      },
    };
  } catch (error) {
    await revocations.close();
    throw error;
  }
}
