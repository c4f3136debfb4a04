/** Every failed call throws this: the HTTP status and the server's error body, whatever its shape. */
export class ExchangeApiError extends Error {
  override name = 'ExchangeApiError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly requestId: string | null,
  ) {
    const message =
      (body as { message?: unknown; errorCode?: unknown } | null)?.message ??
      (body as { errorCode?: unknown })?.errorCode;
    super(`${status}: ${Array.isArray(message) ? message.join('; ') : String(message ?? 'request failed')}`);
  }
}
