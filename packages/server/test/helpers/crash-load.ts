import {
  createMarketOver,
  createTraderOver,
  type HttpTrader,
  postOrders,
  type Reply,
  type SigningMeta,
  signedOrder,
  signingMeta,
} from './cluster-http.js';

/**
 * The load of the crash tests (test/process): traders posting pre-signed orders on one market of a
 * single-process exchange, one request at a time each, all at once, while the test kills the server.
 */

/** A market and `count` traders with `funds` each, through the operator API of `base`. */
export async function loadSetup(
  base: string,
  adminHeaders: Record<string, string>,
  count: number,
  funds: bigint,
): Promise<{ meta: SigningMeta; marketHash: `0x${string}`; traders: HttpTrader[] }> {
  const meta = await signingMeta(base);
  const marketHash = await createMarketOver(base, adminHeaders);
  const traders: HttpTrader[] = [];
  for (let i = 0; i < count; i++) traders.push(await createTraderOver(base, funds, adminHeaders));
  return { meta, marketHash, traders };
}

/** Order `i` of trader `t`. */
export type LoadOrder = { tick: number; size: bigint; isOne: boolean; timeInForce?: 'GTC' | 'IOC' };

/** Each trader's `perTrader` orders, signed before the load so that it is only requests; no salt twice. */
export function presignedOrders(
  meta: SigningMeta,
  marketHash: `0x${string}`,
  traders: readonly HttpTrader[],
  perTrader: number,
  order: (t: number, i: number) => LoadOrder,
): Promise<unknown[][]> {
  return Promise.all(
    traders.map((trader, t) =>
      Promise.all(
        Array.from({ length: perTrader }, (_, i) =>
          signedOrder(meta, trader, { marketHash, ...order(t, i), salt: BigInt(t * 1_000_000 + i + 1) }),
        ),
      ),
    ),
  );
}

/**
 * Every trader posting its orders (`batches[t]`) one request at a time, all at once; `onReply` sees each
 * answer. A trader stops at a request that fails (the server died under it) or once `halt` is called,
 * which resolves when they all have.
 */
export function postEachOrder(
  base: string,
  traders: readonly HttpTrader[],
  batches: readonly unknown[][],
  onReply: (reply: Reply, t: number) => void,
): { halt(): Promise<void> } {
  let halted = false;
  const posting = traders.map(async (trader, t) => {
    for (const order of batches[t]!) {
      if (halted) return;
      try {
        onReply(await postOrders(base, trader, [order]), t);
      } catch {
        return; // the connection died with the server
      }
    }
  });
  return {
    async halt() {
      halted = true;
      await Promise.all(posting);
    },
  };
}
