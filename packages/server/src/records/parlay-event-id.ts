/** A parlay market's event id (docs/parlays.md): it carries the fee rate, so a trade row shows its fee alone. */
const PARLAY_EVENT = /^parlay_(\d{1,5})_[0-9a-f]{40}$/;

/** The event id of a parlay market: `parlay_<fee bps>_<40 hex of its hash>`. */
export function parlayEventId(marketHash: string, feeBps: number): string {
  return `parlay_${feeBps}_${marketHash.slice(2, 42)}`;
}

/** The fee rate of a parlay market's event id, or null for any other event. */
export function parlayFeeBpsOf(eventId: string): number | null {
  const match = PARLAY_EVENT.exec(eventId);
  return match ? Number(match[1]) : null;
}

export const isParlayEventId = (eventId: string): boolean => PARLAY_EVENT.test(eventId);
