import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultisigError } from '../chain/multisig.js';
import { AppError, LegacyError, unavailable } from '../errors/app-error.js';
import type { CommittedBatch } from '../sequencer/committed-batch.js';
import type { SequencerInput } from '../sequencer/inputs.js';
import type { Intent } from '../sequencer/intents.js';
import { decodeRows, encodeRows, rowsOf } from './committed-stream.js';
import { account, MemoryJournal, orderIntent, sequencerOn, usd } from './test-support.js';
import {
  appErrorOf,
  decodeSubmitReply,
  decodeSubmitRequest,
  decodeWire,
  encodeSubmitReply,
  encodeSubmitRequest,
  encodeWire,
  type WireError,
  WireFormatError,
  wireError,
} from './wire-codec.js';

/** Any value the codec carries: plain objects, arrays, strings (any), safe numbers, bigints (any size). */
const wireValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.bigInt(),
    fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

const ADMITTED = orderIntent(account(2), { client: '12345n' });

/** Every kind of journaled input, with bigints and decimal strings under the same field names. */
const EVERY_INPUT: SequencerInput[] = [
  { kind: 'engine', command: { type: 'credit', account: account(1), amount: usd(5) } },
  { kind: 'admit', order: ADMITTED.order, meta: ADMITTED.meta, activateAt: 1_700_000_005_000 },
  { kind: 'withdraw', orderIds: ['0x1', '0x2'], reason: 'MARKET_SUSPENDED' },
  { kind: 'heartbeat', account: account(3), timeoutSeconds: 10, expiresAt: null, ifExpiresAt: 99 },
  {
    kind: 'settlement',
    block: 7,
    txs: [
      {
        firstSeq: 1,
        lastSeq: 3,
        landed: [{ id: 'fill-1', kind: 'fill' }],
        notLanded: [
          {
            id: 'fill-3',
            kind: 'fill',
            moves: [{ kind: 'escrow', from: account(1), amount: 10n }],
            fill: {
              matchId: 'm1',
              seq: 4,
              marketHash: 'M',
              makerAccount: account(1),
              takerAccount: account(2),
              makerIsBettingOutcomeOne: true,
              makerStake: '10',
              takerStake: '12',
              refunds: [],
            },
            status: 'failed',
            error: 'reverted',
          },
          {
            id: 'payout-2',
            kind: 'payout',
            moves: [{ kind: 'release', to: account(4), amount: 123n }],
            status: 'failed',
            error: 'reverted',
          },
        ],
      },
    ],
  },
  { kind: 'escrows', block: null, escrows: [{ account: account(5), firstSeq: 1, lastSeq: 2, ok: true }] },
  {
    kind: 'engine',
    command: {
      type: 'reverseFill',
      fill: {
        matchId: 'm1',
        marketHash: 'M',
        makerAccount: account(1),
        takerAccount: account(2),
        makerIsBettingOutcomeOne: true,
        makerStake: 10n,
        takerStake: 12n,
        refunds: [{ account: account(1), marketHash: 'M', amount: 1n }],
      },
    },
  },
];

describe('the wire codec', () => {
  it('carries any value with bigints exactly', () => {
    fc.assert(
      fc.property(wireValue, (value) => {
        expect(decodeWire(encodeWire(value))).toStrictEqual(value);
      }),
      { numRuns: 500 },
    );
  });

  it('carries every kind of input, bigints as bigints and decimal strings as strings', () => {
    for (const input of EVERY_INPUT) {
      const request = { id: 'r', intents: [{ kind: 'input', input } satisfies Intent] };
      expect(decodeSubmitRequest(encodeSubmitRequest(request))).toStrictEqual(request);
    }
    const text = encodeWire(EVERY_INPUT);
    expect(text).toContain('"amount":"5000000"'); // a decimal string on the wire, readable
    expect(decodeWire<SequencerInput[]>(text)).toStrictEqual(EVERY_INPUT);
  });

  it('carries the results a real sequencer makes (orders crossing, cancels), and its batches as the journal rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            op: fc.constantFrom('back', 'lay', 'cancel', 'credit'),
            who: fc.integer({ min: 1, max: 3 }),
            size: fc.integer({ min: 1, max: 30 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          const journal = new MemoryJournal();
          const sequencer = sequencerOn(journal);
          const batches: CommittedBatch[] = [];
          sequencer.onCommitted((batch) => batches.push(batch));
          const funding = [1, 2, 3].map((n) => ({
            kind: 'input' as const,
            input: {
              kind: 'engine' as const,
              command: { type: 'credit' as const, account: account(n), amount: usd(1_000) },
            },
          }));
          const intents: Intent[] = [
            ...funding,
            ...steps.map(({ op, who, size }): Intent => {
              if (op === 'cancel')
                return {
                  kind: 'cancel',
                  account: account(who),
                  target: { all: true },
                  reason: 'USER_REQUESTED',
                };
              if (op === 'credit') return funding[who - 1]!;
              return orderIntent(account(who), { one: op === 'back', size: usd(size) });
            }),
          ];
          const results = await Promise.all(sequencer.decideAll(intents));
          await sequencer.idle();
          const reply = {
            ok: true as const,
            results: results.map((result) => ({ ok: true as const, result })),
          };
          expect(decodeSubmitReply(encodeSubmitReply(reply))).toStrictEqual(reply);
          // The committed stream's rows of each batch are the journal's, payloads and all.
          for (const batch of batches) {
            const rows = decodeRows(encodeRows(rowsOf(batch)), batch.firstSeq, batch.lastSeq);
            expect(rows).toStrictEqual(journal.rows.slice(batch.firstSeq - 1, batch.lastSeq));
          }
          expect(batches.flatMap((b) => b.entries).some((e) => e.events.length > 0)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('carries errors as the API answers them', () => {
    const reply = decodeSubmitReply(
      encodeSubmitReply({ ok: false, error: wireError(unavailable('full; retry')) }),
    );
    if (reply.ok) throw new Error('expected the refusal');
    const error = appErrorOf(reply.error);
    expect(error).toBeInstanceOf(AppError);
    expect([error.statusCode, error.code, error.message, error.body]).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
      'full; retry',
      { message: 'full; retry', statusCode: 503 },
    ]);
    expect(wireError(new Error('boom'))).toMatchObject({ statusCode: 500, code: 'INTERNAL_ERROR' });
  });

  it('carries the AppError subclasses as themselves: class, status, code, message and body', () => {
    const across = (error: AppError) =>
      appErrorOf(decodeWire<WireError>(encodeWire(wireError(error, 'leader'))));
    const errors: AppError[] = [
      new MultisigError('SIGNER_NOT_OWNER'),
      new MultisigError('SAFE_TX_FAILED', 'reverted: GS013'),
      new LegacyError('INVALID_ORDER_HASH'),
      new LegacyError('ORDERS_NOT_FOUND', 404, 'no such orders'),
      new AppError({ code: 'INVALID_ADDRESS', statusCode: 400, message: 'owner is not an address' }),
    ];
    for (const error of errors) {
      const arrived = across(error);
      expect(arrived.constructor).toBe(error.constructor);
      expect([arrived.name, arrived.statusCode, arrived.code, arrived.message, arrived.body]).toEqual([
        error.name,
        error.statusCode,
        error.code,
        error.message,
        error.body,
      ]);
      if (error instanceof LegacyError) expect((arrived as LegacyError).errorCode).toBe(error.errorCode);
    }
    expect(wireError(new Error('boom'), 'leader').message).toBe('the leader failed: boom');
  });

  it('refuses what it cannot carry exactly', () => {
    expect(() => encodeWire({ at: Number.POSITIVE_INFINITY })).toThrow(WireFormatError);
    expect(() => encodeWire({ when: new Date(0) })).toThrow(WireFormatError);
  });
});
