import type { RouteSpec } from '@oddsbook/protocol';
import { ExchangeApiError, ExchangeNetworkError, retryAfterMs } from '../errors.js';
import { isTransient, type RetryOptions, type RetryPolicy, retryDelay, retryPolicy, sleep } from './retry.js';

export type Credentials = {
  apiKey?: string | undefined;
  /** A browser session (`POST /auth/siwe/verify`), sent as `Authorization: Bearer`. */
  sessionToken?: string | undefined;
  /** The operator token (`x-admin-token`). */
  adminToken?: string | undefined;
};

export type TransportOptions = Credentials & {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  fetch?: typeof fetch | undefined;
  /** A request without an answer after this long fails (and is retried when that is safe). Default 30 s. */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | false | undefined;
};

export type CallInput = {
  params?: Record<string, string | number> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
};

export type CallOptions = {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  retry?: RetryOptions | false | undefined;
  /** Overrides the route's idempotence (placeOrders: the same signed orders are safe to send again). */
  idempotent?: boolean;
  /** Called before each retry with the failure and the wait. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
};

export const DEFAULT_TIMEOUT_MS = 30_000;

const HEADER_OF_AUTH = { apiKey: 'x-svc-api-key', admin: 'x-admin-token' } as const;

function queryString(query: Record<string, unknown> | undefined): string {
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    entries.push([key, Array.isArray(value) ? value.join(',') : String(value)]);
  }
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
}

function fillPath(path: string, params: Record<string, string | number> | undefined): string {
  return path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`${path} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** One REST route call: credentials, timeout, the envelope, errors, and retries of transient failures. */
export class Transport {
  private readonly fetch: typeof fetch;
  /** The client's retry rules (its `retry` option). */
  readonly policy: RetryPolicy;
  readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.policy = retryPolicy(options.retry);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  private headers(route: RouteSpec, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (hasBody) headers['content-type'] = 'application/json';
    const { apiKey, sessionToken, adminToken } = this.options;
    const missing = (what: string) =>
      new TypeError(`${route.method} ${route.path} needs ${what}: pass it to the client's options`);
    if (route.auth === 'apiKey') {
      if (!apiKey) throw missing('an API key (apiKey)');
      headers[HEADER_OF_AUTH.apiKey] = apiKey;
    } else if (route.auth === 'admin') {
      if (!adminToken) throw missing('the operator token (adminToken)');
      headers[HEADER_OF_AUTH.admin] = adminToken;
    } else if (route.auth === 'session') {
      if (!sessionToken) throw missing('a session token (sessionToken, from siweVerify)');
      headers.authorization = `Bearer ${sessionToken}`;
    }
    return headers;
  }

  /** One attempt. */
  private async send(route: RouteSpec, input: CallInput, options: CallOptions): Promise<unknown> {
    const path = fillPath(route.path, input.params);
    const url = `${this.baseUrl}${path}${queryString(input.query)}`;
    const hasBody = input.body !== undefined;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers = this.headers(route, hasBody);
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, {
        method: route.method,
        headers,
        ...(hasBody ? { body: JSON.stringify(input.body) } : {}),
        signal,
      });
      text = await response.text();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new ExchangeNetworkError(route.method, url, timeout.aborted, { cause });
    }
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { message: text.slice(0, 500) };
      }
    }
    if (!response.ok) {
      throw new ExchangeApiError(response.status, body, response.headers.get('x-request-id'), {
        retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
        method: route.method,
        path,
      });
    }
    return route.shape === 'bare' ? body : (body as { data?: unknown } | null)?.data;
  }

  /** Calls `route`, retrying transient failures as the route and the policy allow. */
  async call(route: RouteSpec, input: CallInput = {}, options: CallOptions = {}): Promise<unknown> {
    const policy = options.retry === undefined ? this.policy : retryPolicy(options.retry);
    const idempotent = options.idempotent ?? route.idempotent;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(route, input, options);
      } catch (error) {
        if (attempt >= policy.attempts || !isTransient(error, idempotent)) throw error;
        const delay = retryDelay(error, attempt, policy);
        if (delay === undefined) throw error;
        options.onRetry?.(error, attempt, delay);
        await sleep(delay, options.signal);
      }
    }
  }
}
