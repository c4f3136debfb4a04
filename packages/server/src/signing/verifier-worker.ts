import { parentPort, workerData } from 'node:worker_threads';
import type { OrderDomain } from '@oddsbook/protocol';
import { createOrderVerifier, type VerifyResult } from './order-verifier.js';
import { decodeRequest, encodeReply } from './verifier-wire.js';

const verifier = createOrderVerifier((workerData as { domain: OrderDomain }).domain);

parentPort!.on('message', (request: string) => {
  const { id, items } = decodeRequest(request);
  const results: VerifyResult[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    results[i] = verifier.verify(item.order, item.signature);
  }
  parentPort!.postMessage(encodeReply(id, results));
});
