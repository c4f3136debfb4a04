import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CANCEL_FAILURE_REASONS,
  ERROR_CODES,
  ORDER_INACTIVE_REASONS,
  ORDER_REJECT_REASONS,
} from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { MULTISIG_ERRORS } from '../../src/chain/multisig.js';
import { DoneReason, RejectCode } from '../../src/engine/events.js';

const srcDir = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The engine's refusals of commands other than a place (market creation, resolution, credits, a fill's
 * reversal): never the reason of an order. A new engine code fails this test until it is put here or among
 * the protocol's ORDER_REJECT_REASONS.
 */
const NOT_FOR_ORDERS = new Set([
  'MARKET_EXISTS',
  'INVALID_AMOUNT',
  'INVALID_OUTCOME',
  'NOT_FOUND',
  'INVALID_LEGS',
  'QUARTER_LINE_MARKET',
  'INVALID_PARLAY',
  'PARLAY_MARKET',
  'FILL_NOT_HELD',
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every code the server's source gives an error answer or an order result, as written there. */
function thrownCodes(): { requestLevel: Set<string>; perOrder: Set<string>; cancel: Set<string> } {
  const requestLevel = new Set<string>(Object.keys(MULTISIG_ERRORS));
  const perOrder = new Set<string>(Object.values(RejectCode).filter((c) => !NOT_FOR_ORDERS.has(c)));
  const cancel = new Set<string>();
  for (const file of sources(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const all = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]!);
    for (const code of [
      ...all(/\b(?:badRequest|notFound|conflict|forbidden)\(\s*'([A-Z][A-Z0-9_]+)'/g),
      ...all(/\bnew (?:LegacyError|MultisigError)\(\s*'([A-Z][A-Z0-9_]+)'/g),
      ...all(/\bnew AppError\(\{\s*code:\s*'([A-Z][A-Z0-9_]+)'/g),
      ...all(/\bErrorCode\.([A-Z][A-Z0-9_]+)/g),
    ])
      requestLevel.add(code);
    // The per-order path: FAILED reasons and why a market is closed to orders.
    if (/order-service|market-trading|order-verifier|recover-signer/.test(file)) {
      for (const code of [
        ...all(/\bfail\(c, '([A-Z][A-Z0-9_]+)'\)/g),
        ...all(/\breturn '([A-Z][A-Z0-9_]+)'/g),
        ...all(/closedReason = '([A-Z][A-Z0-9_]+)'/g),
        ...all(/code: '([A-Z][A-Z0-9_]+)'/g),
      ])
        perOrder.add(code);
      for (const code of all(/reason: '([A-Z][A-Z0-9_]+)'/g)) cancel.add(code);
    }
  }
  return { requestLevel, perOrder, cancel };
}

describe('the protocol’s codes are every code the server answers', () => {
  it('request-level codes are ErrorCodes, order results’ reasons OrderRejectReasons, cancels’ CancelFailureReasons', () => {
    const { requestLevel, perOrder, cancel } = thrownCodes();
    // The scan finds what it should (a broken pattern would find nothing and prove nothing).
    expect(requestLevel).toContain('API_KEY_LIMIT');
    expect(requestLevel).toContain('BETTOR_MISMATCH');
    expect(perOrder).toContain('SIGNATURE_MISMATCH');
    expect(perOrder).toContain('FIXTURE_SUSPENDED');
    expect(cancel).toContain('CONFIRMATION_TIMEOUT');
    const missing = (codes: Set<string>, table: Record<string, unknown>) =>
      [...codes].filter((c) => !(c in table));
    expect(missing(requestLevel, ERROR_CODES)).toEqual([]);
    // USER_REQUESTED and HEARTBEAT_TIMEOUT are the reasons a cancel gives the orders, not refusals.
    expect(missing(perOrder, ORDER_REJECT_REASONS).filter((c) => !(c in ORDER_INACTIVE_REASONS))).toEqual([]);
    expect(missing(cancel, CANCEL_FAILURE_REASONS).filter((c) => !(c in ORDER_INACTIVE_REASONS))).toEqual([]);
    expect(Object.values(DoneReason).filter((c) => !(c in ORDER_INACTIVE_REASONS))).toEqual([]);
  });
});
