import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { parseSiweOrigin, readSiweMessage, recoverMessageSigner } from './siwe-message.js';

const account = privateKeyToAccount(generatePrivateKey());
const expectations = { origins: [parseSiweOrigin('http://127.0.0.1:8080')], chainId: 4162 };
const fields = {
  address: account.address,
  chainId: 4162,
  domain: '127.0.0.1:8080',
  uri: 'http://127.0.0.1:8080/',
  version: '1' as const,
  nonce: 'abcdef0123456789',
  issuedAt: new Date('2026-01-01T12:00:00.000Z'),
  expirationTime: new Date('2026-01-01T12:05:00.000Z'),
  notBefore: new Date('2026-01-01T11:59:00.000Z'),
  statement: 'Sign in to the oddsbook exchange.',
};
const valid = createSiweMessage(fields);
const read = (text: string) => readSiweMessage(text, expectations);

/** The other signature of the same message and key: s -> n - s, v flipped (EIP-2's malleability). */
function highSTwin(signature: `0x${string}`): `0x${string}` {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  const twinS = (n - s).toString(16).padStart(64, '0');
  const twinV = (v === 27 ? 28 : v === 28 ? 27 : v ^ 1).toString(16).padStart(2, '0');
  return `0x${signature.slice(2, 66)}${twinS}${twinV}`;
}

describe('readSiweMessage', () => {
  it('reads the message createSiweMessage makes, with or without the configured scheme', () => {
    expect(read(valid)).toMatchObject({
      type: 'read',
      fields: { address: account.address, nonce: fields.nonce },
    });
    expect(read(createSiweMessage({ ...fields, scheme: 'http' })).type).toBe('read');
    const bare = createSiweMessage({ ...fields, statement: undefined, expirationTime: undefined });
    expect(read(bare).type).toBe('read');
  });

  it('refuses every form the parser lets through but EIP-4361 does not', () => {
    const lines = valid.split('\n');
    const expiration = lines.findIndex((l) => l.startsWith('Expiration Time:'));
    const reordered = [...lines];
    [reordered[expiration], reordered[expiration + 1]] = [lines[expiration + 1]!, lines[expiration]!];
    const cases: { text: string; code: string; message: RegExp }[] = [
      {
        text: `${valid}\nI also agree to pay 100 USDC`,
        code: 'NOT_STRICT',
        message: /line \d+ is not what its fields make/,
      },
      { text: `${valid}\n`, code: 'NOT_STRICT', message: /not strict EIP-4361/ },
      { text: reordered.join('\n'), code: 'NOT_STRICT', message: /line \d+ is not/ },
      { text: valid.replace('.000Z', 'Z'), code: 'NOT_STRICT', message: /not strict/ },
      { text: valid.replace('Chain ID: 4162', 'Chain ID: 04162'), code: 'NOT_STRICT', message: /not strict/ },
      { text: valid.replaceAll('\n', '\r\n'), code: 'NOT_STRICT', message: /printable ASCII/ },
      { text: valid.replace('oddsbook', 'oddsböok'), code: 'NOT_STRICT', message: /printable ASCII/ },
      { text: ` ${valid}`, code: 'MALFORMED_MESSAGE', message: /not an EIP-4361 message/ },
      {
        text: valid.replace(account.address, account.address.toLowerCase()),
        code: 'ADDRESS_NOT_CHECKSUMMED',
        message: /EIP-55/,
      },
      {
        text: createSiweMessage({ ...fields, scheme: 'https' }),
        code: 'WRONG_SCHEME',
        message: /for https:\/\/127.0.0.1:8080, this exchange is http:\/\/127.0.0.1:8080/,
      },
      {
        text: createSiweMessage({ ...fields, uri: 'https://127.0.0.1:8080/' }),
        code: 'WRONG_DOMAIN',
        message: /uri is not on its domain/,
      },
      {
        text: createSiweMessage({ ...fields, uri: 'http://127.0.0.1:8081/' }),
        code: 'WRONG_DOMAIN',
        message: /uri is not on its domain/,
      },
      {
        text: createSiweMessage({ ...fields, domain: 'localhost:8080', uri: 'http://localhost:8080/' }),
        code: 'WRONG_DOMAIN',
        message: /for localhost:8080, not this exchange/,
      },
      { text: createSiweMessage({ ...fields, chainId: 1 }), code: 'WRONG_CHAIN', message: /chain 1/ },
      { text: 'x'.repeat(5000), code: 'MALFORMED_MESSAGE', message: /too long/ },
    ];
    for (const { text, code, message } of cases) {
      const result = read(text);
      expect(result.type, text).toBe('refused');
      expect(result, text).toMatchObject({ code, message: expect.stringMatching(message) });
    }
  });
});

describe('recoverMessageSigner', () => {
  it('recovers a personal_sign signature and refuses its high-s twin, which viem would accept', async () => {
    const signature = await account.signMessage({ message: valid });
    expect(recoverMessageSigner(valid, signature)).toEqual({ type: 'recovered', signer: account.address });
    const twin = highSTwin(signature);
    expect(await recoverMessageAddress({ message: valid, signature: twin })).toBe(account.address);
    expect(recoverMessageSigner(valid, twin)).toEqual({
      type: 'refused',
      code: 'MALLEABLE_SIGNATURE',
      message: 'the signature is not in low-s form (EIP-2)',
    });
    expect(recoverMessageSigner(valid, `0x${'0'.repeat(130)}`)).toMatchObject({ code: 'BAD_SIGNATURE' });
  });
});
