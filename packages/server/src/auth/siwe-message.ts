import { getAddress } from 'viem';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { keccak256Buffer } from '../signing/native-crypto.js';
import { recoverSigner } from '../signing/recover-signer.js';

/** Longest EIP-4361 message accepted (a real one is ~500 bytes). */
export const MAX_SIWE_MESSAGE_CHARS = 4096;

/** An origin sign-in messages may be bound to: `scheme://host[:port]` (SIWE_DOMAINS). */
export type SiweOrigin = { scheme: string; domain: string };

/** `scheme://host[:port]` into its parts (the form config.ts writes SIWE_DOMAINS in). */
export function parseSiweOrigin(origin: string): SiweOrigin {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.+)$/.exec(origin);
  if (!match) throw new Error(`not a scheme://host[:port] origin: ${origin}`);
  return { scheme: match[1]!, domain: match[2]! };
}

export type SiweFields = {
  address: `0x${string}`;
  domain: string;
  nonce: string;
  chainId: number;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
};

export type SiweMessageFailure =
  | 'MALFORMED_MESSAGE'
  | 'NOT_STRICT'
  | 'ADDRESS_NOT_CHECKSUMMED'
  | 'WRONG_DOMAIN'
  | 'WRONG_SCHEME'
  | 'WRONG_CHAIN';

export type SiweMessageResult =
  | { type: 'read'; fields: SiweFields }
  | { type: 'refused'; code: SiweMessageFailure; message: string };

const PRINTABLE_ASCII_LINES = /^[\x20-\x7e\n]*$/;

/**
 * Reads an EIP-4361 message strictly: it must be exactly the message its own fields make (viem's
 * `createSiweMessage` of what `parseSiweMessage` found), byte for byte, so nothing the parser skips
 * (a trailing line, a field out of order, a time in another notation) can ride along unseen. The
 * address must be in its EIP-55 form, the domain one of the exchange's origins, a scheme (when the
 * message has one) that origin's, the uri on that origin, the chain the exchange's.
 */
export function readSiweMessage(
  message: string,
  expect: { origins: readonly SiweOrigin[]; chainId: number },
): SiweMessageResult {
  const refuse = (code: SiweMessageFailure, text: string): SiweMessageResult => ({
    type: 'refused',
    code,
    message: text,
  });
  if (message.length > MAX_SIWE_MESSAGE_CHARS) return refuse('MALFORMED_MESSAGE', 'the message is too long');
  if (!PRINTABLE_ASCII_LINES.test(message)) {
    return refuse('NOT_STRICT', 'the message is not strict EIP-4361: printable ASCII lines only');
  }
  const parsed = parseSiweMessage(message);
  if (
    !parsed.address ||
    !parsed.domain ||
    !parsed.nonce ||
    !parsed.uri ||
    parsed.version !== '1' ||
    parsed.chainId === undefined ||
    !parsed.issuedAt
  ) {
    return refuse(
      'MALFORMED_MESSAGE',
      'not an EIP-4361 message with address, domain, uri, chain id and nonce',
    );
  }
  if (getAddress(parsed.address) !== parsed.address) {
    return refuse('ADDRESS_NOT_CHECKSUMMED', 'the message address is not in its EIP-55 checksum form');
  }
  let rebuilt: string;
  try {
    rebuilt = createSiweMessage({
      ...parsed,
      address: parsed.address,
      chainId: parsed.chainId,
      domain: parsed.domain,
      nonce: parsed.nonce,
      uri: parsed.uri,
      version: '1',
    });
  } catch {
    // An invalid time (toISOString throws) or a field createSiweMessage refuses.
    rebuilt = '';
  }
  if (rebuilt !== message) {
    return refuse(
      'NOT_STRICT',
      `the message is not strict EIP-4361: line ${firstDifferentLine(message, rebuilt)} is not what its fields make`,
    );
  }
  const origin = expect.origins.find((o) => o.domain === parsed.domain);
  if (!origin) return refuse('WRONG_DOMAIN', `the message is for ${parsed.domain}, not this exchange`);
  const at = `${origin.scheme}://${origin.domain}`;
  if (parsed.scheme !== undefined && parsed.scheme !== origin.scheme) {
    return refuse(
      'WRONG_SCHEME',
      `the message is for ${parsed.scheme}://${parsed.domain}, this exchange is ${at}`,
    );
  }
  if (originOf(parsed.uri) !== originOf(`${at}/`)) {
    return refuse('WRONG_DOMAIN', `the message uri is not on its domain (${at})`);
  }
  if (parsed.chainId !== expect.chainId) {
    return refuse(
      'WRONG_CHAIN',
      `the message is for chain ${parsed.chainId}, this exchange is ${expect.chainId}`,
    );
  }
  return {
    type: 'read',
    fields: {
      address: parsed.address,
      domain: parsed.domain,
      nonce: parsed.nonce,
      chainId: parsed.chainId,
      issuedAt: parsed.issuedAt,
      ...(parsed.expirationTime ? { expirationTime: parsed.expirationTime } : {}),
      ...(parsed.notBefore ? { notBefore: parsed.notBefore } : {}),
    },
  };
}

export type MessageSignerResult =
  | { type: 'recovered'; signer: `0x${string}` }
  | { type: 'refused'; code: 'BAD_SIGNATURE' | 'MALLEABLE_SIGNATURE'; message: string };

/**
 * The address that signed `message` with `personal_sign` (EIP-191), through libsecp256k1. A high-s
 * signature (s > n/2, the twin every ECDSA signature has) is refused: one signature per message and key.
 */
export function recoverMessageSigner(message: string, signature: string): MessageSignerResult {
  const bytes = Buffer.from(message, 'utf8');
  const digest = keccak256Buffer(
    Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${bytes.length}`), bytes]),
  );
  const result = recoverSigner(digest, signature);
  if (result.ok) return { type: 'recovered', signer: result.signer };
  return result.code === 'MALLEABLE_SIGNATURE'
    ? { type: 'refused', code: 'MALLEABLE_SIGNATURE', message: 'the signature is not in low-s form (EIP-2)' }
    : { type: 'refused', code: 'BAD_SIGNATURE', message: 'the signature does not recover to an address' };
}

function originOf(uri: string): string | null {
  try {
    const url = new URL(uri);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

function firstDifferentLine(message: string, rebuilt: string): number {
  const a = message.split('\n');
  const b = rebuilt.split('\n');
  let line = 0;
  while (line < a.length && a[line] === b[line]) line++;
  return line + 1;
}
