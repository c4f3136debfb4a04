import { privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { signInMessage } from './session.js';

describe('signInMessage', () => {
  it('binds the page host and origin, the chain, the nonce, and a five-minute lifetime', () => {
    const address = privateKeyToAccount(`0x${'1'.repeat(64)}`).address;
    const now = new Date('2026-01-01T12:00:00.000Z');
    const text = signInMessage({
      address,
      chainId: 4162,
      nonce: 'abcdef0123456789abcdef0123456789',
      host: '127.0.0.1:8080',
      origin: 'http://127.0.0.1:8080',
      now,
    });
    expect(text.startsWith('127.0.0.1:8080 wants you to sign in with your Ethereum account:')).toBe(true);
    const fields = parseSiweMessage(text);
    expect(fields).toMatchObject({
      address,
      chainId: 4162,
      domain: '127.0.0.1:8080',
      uri: 'http://127.0.0.1:8080/',
      nonce: 'abcdef0123456789abcdef0123456789',
      version: '1',
    });
    expect(fields.expirationTime?.toISOString()).toBe('2026-01-01T12:05:00.000Z');
    expect(validateSiweMessage({ message: fields, domain: '127.0.0.1:8080', time: now })).toBe(true);
  });
});
