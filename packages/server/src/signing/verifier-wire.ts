import type { VerifyErrorCode, VerifyResult, WireOrder } from './order-verifier.js';

/**
 * The messages between the verifier pool and its workers: one flat string per batch each way.
 *
 * Structured clone pays per object and per property (an item used to be two objects and nine properties,
 * a result one object and three); a one-byte string is copied whole. A request is
 * `id|marketHash|baseToken|totalBetSize|percentageOdds|salt|expiry|maker|outcomeOne|signature|...` (nine
 * fields per item), a reply `id|status|orderId|signer|...` (three per item, status `ok` or the error code).
 *
 * No valid field contains the separator. A field that cannot travel as it is (not a string, or containing
 * the separator) is sent as the empty string, which the verifier rejects exactly as it rejects the original:
 * every malformed signed field makes the whole order `MALFORMED_ORDER`, and a malformed signature is
 * `INVALID_SIGNATURE` either way. So `verify(decode(encode(item)))` equals `verify(item)` for any input.
 */
export const SEP = '|';
const FIELDS_PER_ITEM = 9;
const FIELDS_PER_RESULT = 3;
const OK = 'ok';

export type WireItem = { order: WireOrder; signature: string };

/** Asks a worker to exit once the batches posted before it are done (a request always starts with its id). */
export const STOP = 'stop';

function text(value: unknown): string {
  return typeof value === 'string' && !value.includes(SEP) ? value : '';
}

/** A uint field may also be a JS number: sent in decimal when the verifier would encode it, else as ''. */
function uintText(value: unknown): string {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : '';
  return text(value);
}

export function encodeRequest(id: number, items: readonly WireItem[]): string {
  let out = String(id);
  for (const item of items) {
    const o = item.order as Partial<WireOrder> | null;
    if (o === null || typeof o !== 'object') {
      // No order object: every field is malformed (the signature does not matter then).
      out += SEP.repeat(FIELDS_PER_ITEM);
      continue;
    }
    const side = o.isMakerBettingOutcomeOne;
    out +=
      SEP +
      text(o.marketHash) +
      SEP +
      text(o.baseToken) +
      SEP +
      uintText(o.totalBetSize) +
      SEP +
      uintText(o.percentageOdds) +
      SEP +
      uintText(o.salt) +
      SEP +
      uintText(o.expiry) +
      SEP +
      text(o.maker) +
      SEP +
      (side === true ? '1' : side === false ? '0' : '') +
      SEP +
      text(item.signature);
  }
  return out;
}

export function decodeRequest(message: string): { id: number; items: WireItem[] } {
  const f = message.split(SEP);
  const count = (f.length - 1) / FIELDS_PER_ITEM;
  const items: WireItem[] = new Array(count);
  for (let i = 0, k = 1; i < count; i++, k += FIELDS_PER_ITEM) {
    const side = f[k + 7];
    items[i] = {
      order: {
        marketHash: f[k]!,
        baseToken: f[k + 1]!,
        totalBetSize: f[k + 2]!,
        percentageOdds: f[k + 3]!,
        salt: f[k + 4]!,
        expiry: f[k + 5]!,
        maker: f[k + 6]!,
        // Anything but a boolean is malformed, as it was on the sending side.
        isMakerBettingOutcomeOne: (side === '1' ? true : side === '0' ? false : null) as boolean,
      },
      signature: f[k + 8]!,
    };
  }
  return { id: Number(f[0]), items };
}

export function encodeReply(id: number, results: readonly VerifyResult[]): string {
  let out = String(id);
  for (const r of results) {
    out += r.ok
      ? `${SEP}${OK}${SEP}${r.orderId}${SEP}${r.signer}`
      : `${SEP}${r.code}${SEP}${r.orderId ?? ''}${SEP}`;
  }
  return out;
}

export function decodeReply(message: string): { id: number; results: VerifyResult[] } {
  const f = message.split(SEP);
  const count = (f.length - 1) / FIELDS_PER_RESULT;
  const results: VerifyResult[] = new Array(count);
  for (let i = 0, k = 1; i < count; i++, k += FIELDS_PER_RESULT) {
    const status = f[k]!;
    const orderId = f[k + 1]!;
    if (status === OK)
      results[i] = { ok: true, orderId: orderId as `0x${string}`, signer: f[k + 2] as `0x${string}` };
    else if (orderId === '') results[i] = { ok: false, code: status as VerifyErrorCode };
    else results[i] = { ok: false, code: status as VerifyErrorCode, orderId: orderId as `0x${string}` };
  }
  return { id: Number(f[0]), results };
}
