import { describe, expect, it } from 'vitest';
import { clientNetwork } from './client-network.js';

describe('clientNetwork', () => {
  it('keeps an IPv4 address and unwraps an IPv4-mapped one', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:10.0.0.1')).toBe('10.0.0.1');
  });

  it('groups an IPv6 address by its /64, however it is written', () => {
    const network = '2001:db8:aa:1::/64';
    for (const ip of [
      '2001:db8:aa:1::1',
      '2001:0db8:00aa:0001:ffff:ffff:ffff:ffff',
      '2001:db8:aa:1:1:2:3:4',
      '2001:db8:aa:1::192.0.2.1',
      '2001:DB8:AA:1::abcd%eth0',
    ]) {
      expect(clientNetwork(ip), ip).toBe(network);
    }
    expect(clientNetwork('2001:db8:aa:2::1')).not.toBe(network);
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('returns what is not an address unchanged', () => {
    expect(clientNetwork('')).toBe('');
    expect(clientNetwork('not-an-ip')).toBe('not-an-ip');
  });
});
