import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export type TcpProxy = {
  /** http://127.0.0.1:<port> of the proxy. */
  url: string;
  /** Cuts every open connection (both ends), as a network failure would. */
  dropAll(): void;
  /** Cuts every connection and refuses new ones until `resume`. */
  pause(): void;
  resume(): void;
  /** Sends new connections to another port (a restarted server). */
  retarget(port: number): void;
  close(): Promise<void>;
};

/** A TCP proxy in front of a server, to cut its clients' connections from outside them. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let target = targetPort;
  let paused = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (paused) return void client.destroy();
    const upstream = connect(target, '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropAll,
    pause() {
      paused = true;
      dropAll();
    },
    resume() {
      paused = false;
    },
    retarget(port) {
      target = port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
