import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CANCEL_FAILURE_REASONS,
  type CodeInfo,
  ERROR_CODES,
  ORDER_INACTIVE_REASONS,
  ORDER_REJECT_REASONS,
} from './errors.js';

const DOC = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url));
const BEGIN = '<!-- codes: generated from packages/protocol/src/errors.ts -->';
const END = '<!-- end of codes -->';

const cell = (text: string) => text.replaceAll('|', '\\|');

function table(codes: Record<string, CodeInfo>, withStatus: boolean): string {
  const head = withStatus
    ? '| Code | Status | When | What to do |\n|---|---|---|---|'
    : '| Code | When | What to do |\n|---|---|---|';
  const rows = Object.entries(codes).map(([code, info]) =>
    withStatus
      ? `| \`${code}\` | ${info.status.join(', ')} | ${cell(info.when)} | ${cell(info.action)} |`
      : `| \`${code}\` | ${cell(info.when)} | ${cell(info.action)} |`,
  );
  return [head, ...rows].join('\n');
}

/** The generated part of docs/errors.md: every code of the protocol's tables. */
function render(): string {
  return [
    BEGIN,
    '',
    '### Request errors (`ErrorCode`)',
    '',
    table(ERROR_CODES, true),
    '',
    '### Why an order was refused (`reason` of a FAILED result, `OrderRejectReason`)',
    '',
    table(ORDER_REJECT_REASONS, false),
    '',
    '### Why an order left the book (`inactiveReason`, an outcome\u2019s `cancelReason`)',
    '',
    table(ORDER_INACTIVE_REASONS, false),
    '',
    '### Why an id was not cancelled (`DELETE /orders-v3`: `notCancelled`, `unconfirmed`)',
    '',
    table(CANCEL_FAILURE_REASONS, false),
    '',
    END,
  ].join('\n');
}

describe('docs/errors.md', () => {
  it('lists every code of the protocol with what it means and what to do (UPDATE_DOCS=1 rewrites it)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start, 'the generated section’s markers').toBeGreaterThanOrEqual(0);
    const current = doc.slice(start, end + END.length);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, doc.replace(current, render()));
    else expect(current).toBe(render());
  });
});
