import { parentPort, workerData } from 'node:worker_threads';
import type { OrderDomain } from '@oddsbook/protocol';
import { createOrderVerifier, type VerifyResult } from './order-verifier.js';
import type { VerifyItem } from './verifier-pool.js';

type Request = { id: number; items: VerifyItem[] };

const verifier = createOrderVerifier((workerData as { domain: OrderDomain }).domain);

parentPort!.on('message', (request: Request) => {
  const results: VerifyResult[] = new Array(request.items.length);
  for (let i = 0; i < request.items.length; i++) {
    const item = request.items[i]!;
    results[i] = verifier.verify(item.order, item.signature);
  }
  parentPort!.postMessage({ id: request.id, results });
});
