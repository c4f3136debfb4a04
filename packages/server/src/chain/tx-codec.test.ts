import { describe, expect, it } from 'vitest';
import type { ChainTxPayload } from './chain-types.js';
import { A, B } from './test-support.js';
import { canonicalJson, decodePayload, encodePayload, transactionHash } from './tx-codec.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, writes bigints as decimal strings and leaves out undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [3n, { z: null, y: 'x' }], c: undefined }, aa: true })).toBe(
      '{"a":{"d":["3",{"y":"x","z":null}]},"aa":true,"b":1}',
    );
    expect(canonicalJson([-12n, 'q', 0])).toBe('["-12","q",0]');
  });

  it('gives one string, so one hash, whatever the order the keys were written in', () => {
    const one: ChainTxPayload = {
      kind: 'settle',
      firstSeq: 1,
      lastSeq: 2,
      retries: [],
      items: [{ id: 'f:1', kind: 'fill', moves: [{ kind: 'escrow', from: A, amount: 5n }] }],
    };
    const other = {
      items: [{ moves: [{ amount: 5n, from: A, kind: 'escrow' }], kind: 'fill', id: 'f:1' }],
      retries: [],
      lastSeq: 2,
      firstSeq: 1,
      kind: 'settle',
    } as ChainTxPayload;
    expect(canonicalJson(other)).toBe(canonicalJson(one));
    expect(transactionHash(4162, 3, other)).toBe(transactionHash(4162, 3, one));
    expect(transactionHash(4162, 4, one)).not.toBe(transactionHash(4162, 3, one));
  });
});

describe('settle payloads in storage', () => {
  it('round-trip: move amounts back to bigints, the fill calldata as it was', () => {
    const payload: ChainTxPayload = {
      kind: 'settle',
      firstSeq: 4,
      lastSeq: 9,
      retries: [{ id: 'p:1', kind: 'payout', moves: [{ kind: 'release', to: B, amount: 7n }] }],
      items: [
        {
          id: 'f:1',
          kind: 'fill',
          moves: [
            { kind: 'escrow', from: A, amount: 12_345_678_901_234_567_890n },
            { kind: 'release', to: A, amount: 1n },
          ],
          fill: {
            matchId: 'm',
            seq: 5,
            marketHash: '0x01',
            makerAccount: A,
            takerAccount: B,
            makerIsBettingOutcomeOne: false,
            makerStake: '3',
            takerStake: '4',
            refunds: [{ account: A, marketHash: '0x01', amount: '1' }],
          },
        },
        { id: 'd:1', kind: 'deposit', moves: [{ kind: 'mint', to: B, amount: 2n }] },
      ],
    };
    expect(decodePayload(encodePayload(payload))).toEqual(payload);
  });
});
