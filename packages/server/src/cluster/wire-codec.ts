import type { ErrorCode } from '@oddsbook/protocol';
import { MULTISIG_ERRORS, MultisigError, type MultisigErrorCode } from '../chain/multisig.js';
import { AppError, LegacyError } from '../errors/app-error.js';
import type { Intent, IntentResult } from '../sequencer/intents.js';

/**
 * What crosses NATS is JSON with every bigint as a decimal string. Which strings were bigints is listed
 * beside the value (their paths), not guessed from field names: the same name holds a bigint in one type
 * and a decimal string in another (`makerStake` of a `reverseFill`'s fill and of a settled fill), and
 * strings a user chose (a client order id) may look like anything. So a round trip is exact.
 */
type Path = (string | number)[];
type Envelope = { v: unknown; b?: Path[] };

export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

export function encodeWire(value: unknown): string {
  const bigints: Path[] = [];
  const v = toJson(value, [], bigints);
  return JSON.stringify(bigints.length > 0 ? { v, b: bigints } : { v });
}

export function decodeWire<T>(text: string | Uint8Array): T {
  const envelope = JSON.parse(typeof text === 'string' ? text : decoder.decode(text)) as Envelope;
  if (typeof envelope !== 'object' || envelope === null || !('v' in envelope))
    throw new WireFormatError('not a wire envelope');
  let root = envelope.v;
  for (const path of envelope.b ?? []) {
    if (path.length === 0) {
      root = BigInt(root as string);
      continue;
    }
    let parent = root as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    const digits = parent?.[last];
    if (typeof digits !== 'string') throw new WireFormatError(`no bigint at ${path.join('.')}`);
    Object.defineProperty(parent, last, {
      value: BigInt(digits),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return root as T;
}

const decoder = new TextDecoder();

function toJson(value: unknown, path: Path, bigints: Path[]): unknown {
  switch (typeof value) {
    case 'bigint':
      bigints.push([...path]);
      return value.toString();
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value))
        throw new WireFormatError(`${value} at ${path.join('.')} has no JSON form`);
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        return value.map((item, i) => {
          path.push(i);
          const out = toJson(item, path, bigints);
          path.pop();
          return out;
        });
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null)
        throw new WireFormatError(`a ${proto?.constructor?.name ?? 'non-plain'} object at ${path.join('.')}`);
      // fromEntries defines own properties: a key "__proto__" stays a key.
      const out: [string, unknown][] = [];
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined) continue;
        path.push(key);
        out.push([key, toJson(item, path, bigints)]);
        path.pop();
      }
      return Object.fromEntries(out);
    }
    default:
      throw new WireFormatError(`a ${typeof value} at ${path.join('.')} has no wire form`);
  }
}

// ---------------------------------------------------------------- the sequencer's intake

/** A request to the leading sequencer: intents decided together (`Sequencer.decideAll`). */
export type SubmitRequest = {
  /** The same on every retry of one call: the leader answers a retry it has answered already from memory. */
  id: string;
  intents: readonly Intent[];
};

/** An error as it crosses the wire: what the API answers with. */
export type WireError = {
  code: ErrorCode;
  statusCode: number;
  message: string;
  body?: Record<string, unknown>;
  /** The AppError subclass it was, when one (so that the receiver throws the same class). */
  kind?: WireErrorKind;
};

/** The AppError subclasses rebuilt as themselves on the other side (any other AppError arrives as AppError). */
type WireErrorKind = 'MultisigError' | 'LegacyError';

/** Each intent's result or its refusal, in order; or the whole request refused (503 when the queue is full). */
export type SubmitReply =
  | { ok: true; results: ({ ok: true; result: IntentResult } | { ok: false; error: WireError })[] }
  | { ok: false; error: WireError };

/** `responder` names who failed in the message of an error that is not the API's own (a 500). */
export function wireError(error: unknown, responder = 'sequencer'): WireError {
  if (error instanceof AppError) {
    const kind = error instanceof MultisigError || error instanceof LegacyError ? error.name : undefined;
    return {
      code: error.code,
      statusCode: error.statusCode,
      message: error.message,
      ...(error.body ? { body: error.body } : {}),
      ...(kind ? { kind: kind as WireErrorKind } : {}),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL_ERROR', statusCode: 500, message: `the ${responder} failed: ${message}` };
}

export function appErrorOf(error: WireError): AppError {
  if (error.kind === 'MultisigError' && error.code in MULTISIG_ERRORS)
    return new MultisigError(error.code as MultisigErrorCode, error.message);
  const legacyCode = error.body?.errorCode;
  if (error.kind === 'LegacyError' && typeof legacyCode === 'string') {
    const message = error.body?.message;
    return new LegacyError(legacyCode, error.statusCode, typeof message === 'string' ? message : undefined);
  }
  return new AppError({
    code: error.code,
    statusCode: error.statusCode,
    message: error.message,
    ...(error.body ? { body: error.body } : {}),
  });
}

export const encodeSubmitRequest = (request: SubmitRequest): string => encodeWire(request);
export const decodeSubmitRequest = (data: Uint8Array | string): SubmitRequest => decodeWire(data);
export const encodeSubmitReply = (reply: SubmitReply): string => encodeWire(reply);
export const decodeSubmitReply = (data: Uint8Array | string): SubmitReply => decodeWire(data);
