import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode, errorBody } from '@oddsbook/protocol';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from './security-headers.js';

const RAW_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * What Fastify's default `clientErrorHandler` answers to a request Node could not parse (malformed, headers
 * too large, too slow), written on the socket as it does, in the common error shape, with the security
 * headers every other answer carries.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nothing to answer to.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message, code] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ([408, 'Client Timeout', ErrorCode.REQUEST_TIMEOUT] as const)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ([431, 'Exceeded maximum allowed HTTP header size', ErrorCode.HEADERS_TOO_LARGE] as const)
        : ([400, 'Client Error', ErrorCode.BAD_REQUEST] as const);
  this.log.trace({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, message, code));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\n${RAW_HEADERS}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
