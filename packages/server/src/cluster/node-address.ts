import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';

/** host:port of a listening server, null before it listens. */
export function listening(address: unknown): string | null {
  if (!address || typeof address !== 'object') return null;
  const { address: host, port } = address as AddressInfo;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A wildcard listen (0.0.0.0, ::) is reached by the host's name. */
export function reachable(address: string): string {
  const wildcard = /^(0\.0\.0\.0|\[::\]):/.exec(address);
  return wildcard ? `${hostname()}:${address.slice(wildcard[0].length)}` : address;
}
