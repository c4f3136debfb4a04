import { parentPort, workerData } from 'node:worker_threads';
import type { OrderDomain } from '@oddsbook/protocol';
import { createOrderVerifier, type VerifyResult } from './order-verifier.js';
import { decodeRequest, encodeReply, STOP } from './verifier-wire.js';

const verifier = createOrderVerifier((workerData as { domain: OrderDomain }).domain);

parentPort!.on('message', (request: string) => {
  // Between batches, never inside one: terminating a thread while it is in keccak or libsecp256k1 aborts the
  // process (node-addon-api raises a fatal error), so the pool stops its workers with this message.
  if (request === STOP) {
    parentPort!.close();
    return;
  }
  const { id, items } = decodeRequest(request);
  const results: VerifyResult[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    results[i] = verifier.verify(item.order, item.signature);
  }
  parentPort!.postMessage(encodeReply(id, results));
});
