import type { Server, Socket } from 'node:net';

/**
 * Caps open connections: all together (`server.maxConnections`: Node closes the ones past it on accept)
 * and per peer address, so that one client's idle sockets cannot take the descriptor table or every slot.
 * The peer is the TCP peer: behind a reverse proxy every connection comes from the proxy.
 */
export function limitConnections(
  server: Server,
  options: { maxConnections: number; maxPerAddress: number },
): void {
  server.maxConnections = options.maxConnections;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > options.maxPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
