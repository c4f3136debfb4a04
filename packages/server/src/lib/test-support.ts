import { type AddressInfo, createServer } from 'node:net';

/**
 * A loopback port the system has just handed out as free (listened on and closed at once): a server
 * started on it right after is unlikely to meet another test's server there, which a random pick can.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
