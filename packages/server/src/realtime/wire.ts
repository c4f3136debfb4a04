/**
 * Centrifugo client protocol v2, JSON flavour: command shapes (client -> server) and the encoders of
 * replies and pushes (server -> client). Field names follow `client.proto`; zero values are left out
 * as proto3 JSON does, but a reply always carries its result key, even when the result is empty,
 * because centrifuge-js reads fields of it unconditionally.
 */
import type { ProtocolError } from './codes.js';

export type StreamPositionWire = { offset?: number; epoch?: string };

export type ConnectRequest = {
  token?: string;
  data?: unknown;
  name?: string;
  version?: string;
  subs?: unknown;
};
export type SubscribeRequest = {
  channel?: string;
  token?: string;
  recover?: boolean;
  epoch?: string;
  offset?: number;
  positioned?: boolean;
  recoverable?: boolean;
  join_leave?: boolean;
  flag?: number;
};
export type ChannelRequest = { channel?: string };
export type HistoryRequest = {
  channel?: string;
  limit?: number;
  since?: StreamPositionWire;
  reverse?: boolean;
};
export type RefreshRequest = { token?: string };

/** The one method a command carries, as a discriminated union. */
export type Command =
  | { method: 'connect'; id: number; req: ConnectRequest }
  | { method: 'subscribe'; id: number; req: SubscribeRequest }
  | { method: 'unsubscribe'; id: number; req: ChannelRequest }
  | { method: 'publish'; id: number; req: ChannelRequest }
  | { method: 'presence'; id: number; req: ChannelRequest }
  | { method: 'presence_stats'; id: number; req: ChannelRequest }
  | { method: 'history'; id: number; req: HistoryRequest }
  | { method: 'refresh'; id: number; req: RefreshRequest }
  | { method: 'sub_refresh'; id: number; req: ChannelRequest }
  | { method: 'rpc'; id: number; req: unknown }
  | { method: 'ping'; id: number; req: unknown }
  | { method: 'send'; id: number; req: unknown }
  | { method: 'pong'; id: 0 };

/** The commands of the client protocol, by their key in a command frame. */
export const COMMAND_METHODS = [
  'connect',
  'subscribe',
  'unsubscribe',
  'publish',
  'presence',
  'presence_stats',
  'history',
  'refresh',
  'sub_refresh',
  'rpc',
  'ping',
  'send',
] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits one WebSocket message into commands (newline-delimited JSON, blank lines skipped).
 * Returns undefined when any line is not a well-formed command: the connection is then closed
 * with 3501 "bad request", as the Go server does.
 */
export function decodeCommands(text: string): Command[] | undefined {
  const out: Command[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isRecord(value)) return undefined;
    const id = value.id ?? 0;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) return undefined;
    const method = COMMAND_METHODS.find((m) => value[m] !== undefined);
    if (method === undefined) {
      // `{}` is a pong; anything else without a method is malformed.
      if (id !== 0 || Object.keys(value).some((k) => k !== 'id')) return undefined;
      out.push({ method: 'pong', id: 0 });
      continue;
    }
    const req = value[method];
    if (method !== 'send' && id === 0) return undefined;
    if (method !== 'rpc' && method !== 'ping' && method !== 'send' && !isRecord(req)) return undefined;
    out.push({ method, id, req } as Command);
  }
  return out;
}

/** `{"id":N,"<method>":<resultJson>}`. */
export function encodeResult(id: number, method: string, resultJson: string): string {
  return `{"id":${id},"${method}":${resultJson}}`;
}

const errorJsonCache = new Map<ProtocolError, string>();

export function encodeError(id: number, error: ProtocolError): string {
  let json = errorJsonCache.get(error);
  if (json === undefined) {
    json = JSON.stringify(error);
    errorJsonCache.set(error, json);
  }
  return `{"id":${id},"error":${json}}`;
}

/** Already encoded JSON, placed as it is. */
export type RawJson = { readonly raw: string };

/** Builds a result object's JSON from its fields, leaving out zero values (proto3 JSON). */
export function encodeFields(
  fields: Record<string, string | number | boolean | RawJson | undefined>,
): string {
  let json = '';
  for (const key in fields) {
    const value = fields[key];
    if (value === undefined || value === 0 || value === false || value === '') continue;
    const encoded =
      typeof value === 'object' ? value.raw : typeof value === 'string' ? JSON.stringify(value) : value;
    json += `${json === '' ? '' : ','}"${key}":${encoded}`;
  }
  return `{${json}}`;
}

/** The prefix of every `pub` push of a channel: `{"push":{"channel":"...","pub":` (then the publication, then `}}`). */
export function pubPushPrefix(channel: string): string {
  return `{"push":{"channel":${JSON.stringify(channel)},"pub":`;
}

export const PUB_PUSH_SUFFIX = '}}';

/** The push that ends a subscription from the server's side (`{"push":{"channel":..,"unsubscribe":{..}}}`). */
export function encodeUnsubscribePush(
  channel: string,
  unsubscribe: { code: number; reason: string },
): string {
  return `{"push":{"channel":${JSON.stringify(channel)},"unsubscribe":${JSON.stringify(unsubscribe)}}}`;
}

/** The server ping: an empty reply. */
export const PING = '{}';
