import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a client address stands for when counting what one client holds: an IPv4 address is
 * itself, an IPv6 address is its /64 (one subscriber's prefix: a host picks any of its 2^64 addresses
 * at will), an IPv4-mapped IPv6 address is the IPv4 address. Anything else is returned as it is.
 */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const address = ip.split('%')[0]!;
  if (!isIPv6(address)) return ip;
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const high = groupsOf(head);
  const low = tail === undefined ? [] : groupsOf(tail);
  // A trailing dotted IPv4 part stands for two groups.
  const lowCount = low.length + (low.at(-1)?.includes('.') ? 1 : 0);
  const groups = [...high, ...Array<string>(Math.max(0, 8 - high.length - lowCount)).fill('0'), ...low];
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
