/** The Centrifugo client protocol v2 (JSON), the part the SDK speaks: docs/realtime.md on the server side. */

export type StreamPosition = { offset: number; epoch: string };

export type WirePublication = {
  data: unknown;
  offset?: number;
  tags?: Record<string, string>;
};

export type SubscribeResult = {
  recoverable?: boolean;
  positioned?: boolean;
  epoch?: string;
  offset?: number;
  publications?: WirePublication[];
  recovered?: boolean;
  was_recovering?: boolean;
};

export type ConnectResult = {
  client?: string;
  version?: string;
  expires?: boolean;
  ttl?: number;
  ping?: number;
  pong?: boolean;
};

export type WireError = { code: number; message: string; temporary?: boolean };

export type Reply = {
  id?: number;
  error?: WireError;
  connect?: ConnectResult;
  subscribe?: SubscribeResult;
  unsubscribe?: Record<string, never>;
  refresh?: { expires?: boolean; ttl?: number };
  push?: {
    channel?: string;
    pub?: WirePublication;
    unsubscribe?: { code: number; reason?: string };
    disconnect?: { code: number; reason?: string };
  };
};

/** Reply error codes that are worth another try (Centrifugo marks them temporary). */
export const TEMPORARY_ERRORS = new Set([100, 111, 113]);
/** Connect error: the token expired; fetch a new one and connect again. */
export const TOKEN_EXPIRED = 109;

/** Close codes after which the client must not reconnect (Centrifugo: 3500-3999, 4500-4999, 1009). */
export function isTerminalClose(code: number): boolean {
  return code === 1009 || (code >= 3500 && code <= 3999) || (code >= 4500 && code <= 4999);
}

/** A frame's replies: newline-delimited JSON, blank lines skipped. */
export function decodeFrame(text: string): Reply[] {
  const replies: Reply[] = [];
  for (const line of text.split('\n')) if (line.trim()) replies.push(JSON.parse(line) as Reply);
  return replies;
}
