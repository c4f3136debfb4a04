import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** Writes `request` as it is on a fresh connection and reads the answer until the server closes it. */
function rawRequest(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

function expectCommonHeaders(answer: RawAnswer): void {
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
  expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
}

describe('requests Node would answer itself, over a real socket', () => {
  let t: TestExchange;
  let port: number;
  beforeAll(async () => {
    t = await startTestExchange();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  it('answers an HTTP/1.1 request without Host with 400 in the error shape and closes', async () => {
    const answer = await rawRequest(port, 'GET /health HTTP/1.1\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      message: 'MISSING_HOST: an HTTP/1.1 request needs a Host header',
      error: 'Bad Request',
      statusCode: 400,
      code: 'MISSING_HOST',
    });
    expect(answer.headers.connection).toBe('close');
    expectCommonHeaders(answer);
    // An empty Host is none.
    expect((await rawRequest(port, 'GET /sports HTTP/1.1\r\nHost:\r\n\r\n')).status).toBe(400);
  });

  it('serves HTTP/1.1 with Host, and HTTP/1.0 without (it has no such rule)', async () => {
    const withHost = await rawRequest(
      port,
      'GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(withHost.status).toBe(200);
    const old = await rawRequest(port, 'GET /health HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('answers a request Node cannot parse in the error shape with the security headers', async () => {
    const answer = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      message: 'Client Error',
      error: 'Bad Request',
      statusCode: 400,
      code: 'BAD_REQUEST',
    });
    expectCommonHeaders(answer);
    const huge = await rawRequest(
      port,
      `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({
      statusCode: 431,
      error: 'Request Header Fields Too Large',
      code: 'HEADERS_TOO_LARGE',
    });
  });
});
