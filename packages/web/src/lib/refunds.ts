import type { PortfolioRefund, RefundEvent } from '@oddsbook/protocol';

const eventKey = (e: RefundEvent) => `${e.fillOrderHash}|${e.createdAt}|${e.amount}`;

/**
 * Adds refunds (a page of the refunds route, or a `ce_refunds` message) to those known: per market the
 * larger `totalRefunded` (it only grows) and the union of events.
 */
export function mergeRefunds(
  known: readonly PortfolioRefund[],
  added: readonly PortfolioRefund[],
): PortfolioRefund[] {
  const byMarket = new Map<string, PortfolioRefund>();
  for (const r of [...known, ...added]) {
    const hash = r.marketHash.toLowerCase();
    const old = byMarket.get(hash);
    if (!old) {
      byMarket.set(hash, { ...r, events: [...r.events] });
      continue;
    }
    const seen = new Set(old.events.map(eventKey));
    old.events.push(...r.events.filter((e) => !seen.has(eventKey(e))));
    if (BigInt(r.totalRefunded) > BigInt(old.totalRefunded)) old.totalRefunded = r.totalRefunded;
  }
  return [...byMarket.values()];
}

/** Every refund event, newest first. */
export function refundEvents(refunds: readonly PortfolioRefund[]): RefundEvent[] {
  return refunds
    .flatMap((r) => r.events)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.fillOrderHash.localeCompare(b.fillOrderHash));
}

/** All refunds together, base units. */
export function totalRefunded(refunds: readonly PortfolioRefund[]): bigint {
  return refunds.reduce((sum, r) => sum + BigInt(r.totalRefunded), 0n);
}
