import { type BookLevel, ODDS_SCALE, takerBook } from '@oddsbook/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  addLeg,
  bettorOffers,
  canRequest,
  legStatus,
  type SlipLeg,
  secondsLeft,
  storedLegs,
  storedRequest,
  storeLegs,
  storeRequest,
} from './parlay.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const leg = (market: number, event: string, one = true): SlipLeg => ({
  marketHash: hash(market),
  eventId: event,
  bettingOutcomeOne: one,
  game: `Home ${event} – Away ${event}`,
  pick: one ? `Home ${event}` : `Away ${event}`,
});
const pct = (p: number) => (BigInt(Math.round(p * 1000)) * ODDS_SCALE) / 100_000n;

describe('the parlay slip', () => {
  it('adds legs of different games, and replaces a second pick of the same game', () => {
    let legs: SlipLeg[] = [];
    legs = addLeg(legs, leg(1, 'e1')).legs;
    legs = addLeg(legs, leg(2, 'e2')).legs;
    expect(canRequest(legs)).toBe(true);
    const replaced = addLeg(legs, leg(3, 'e1', false));
    expect(replaced.legs.map((l) => l.marketHash)).toEqual([hash(3), hash(2)]);
    expect(replaced.note).toBe('One leg per game: Home e1 – Away e1 is now Away e1.');
    // The same pick again changes nothing and says nothing.
    expect(addLeg(legs, leg(1, 'e1'))).toEqual({ legs });
  });
  it('needs 2 to 10 legs', () => {
    let legs: SlipLeg[] = [leg(0, 'e0')];
    expect(canRequest(legs)).toBe(false);
    for (let i = 1; i < 10; i++) legs = addLeg(legs, leg(i, `e${i}`)).legs;
    expect(legs).toHaveLength(10);
    expect(canRequest(legs)).toBe(true);
    const eleventh = addLeg(legs, leg(10, 'e10'));
    expect(eleventh.legs).toHaveLength(10);
    expect(eleventh.note).toBe('A parlay has at most 10 legs.');
  });
});

describe('bettorOffers', () => {
  const offer = (odds: number, remaining: string, one = false) => ({
    orderId: hash(odds * 1000),
    isMakerBettingOutcomeOne: one,
    percentageOdds: pct(odds).toString(),
    totalBetSize: remaining,
    remainingSize: remaining,
    expiry: '2030-01-01T00:00:00.000Z',
    createdAt: '2029-01-01T00:00:00.000Z',
  });
  it("shows the makers laying the parlay at the bettor's odds and stake, best payout first, as the taker book", () => {
    const offers = [
      offer(70.5, '23898306'),
      offer(72, '5000000'),
      offer(40, '1000000', true),
      offer(60, '1'),
    ];
    const shown = bettorOffers(offers, 125);
    expect(shown.map((o) => o.odds)).toEqual([pct(28), pct(29.5)]);
    const taker = takerBook(
      {
        outcomeOne: [] as BookLevel[],
        outcomeTwo: [{ percentageOdds: offers[0]!.percentageOdds, size: offers[0]!.remainingSize }],
      },
      125,
    ).outcomeOne[0]!;
    expect(shown[1]!.size).toBe(BigInt(taker.size));
    expect(shown[1]!.size).toBe(10_000_000n);
  });
});

describe('legStatus', () => {
  it('is open until resolved, then won, lost or void for the pick', () => {
    expect(legStatus({}, true)).toBe('open');
    expect(legStatus({ outcome: 1 }, true)).toBe('won');
    expect(legStatus({ outcome: 1 }, false)).toBe('lost');
    expect(legStatus({ outcome: 2 }, false)).toBe('won');
    expect(legStatus({ outcome: 0 }, true)).toBe('void');
  });
});

describe('secondsLeft', () => {
  it('rounds up and stops at zero', () => {
    const at = Date.parse('2030-01-01T00:00:10.000Z');
    expect(secondsLeft('2030-01-01T00:00:12.500Z', at)).toBe(3);
    expect(secondsLeft('2030-01-01T00:00:10.000Z', at)).toBe(0);
    expect(secondsLeft('2030-01-01T00:00:09.000Z', at)).toBe(0);
  });
});

describe('the slip kept across a reload', () => {
  const memory = new Map<string, string>();
  beforeEach(() => {
    memory.clear();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => memory.get(key) ?? null,
      setItem: (key: string, value: string) => memory.set(key, value),
      removeItem: (key: string) => memory.delete(key),
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const alice = '0xAbC0000000000000000000000000000000000001';
  const bob = '0x0000000000000000000000000000000000000002';
  const request = (takeUntil: string) => ({
    marketHash: hash(9),
    legs: [],
    quoteWindowEndsAt: '2026-11-29T12:00:03.000Z',
    takeUntil,
  });

  it("keeps each account's legs, and nothing without an account or after the slip is emptied", () => {
    storeLegs(alice, [leg(1, 'e1'), leg(2, 'e2')]);
    expect(storedLegs(alice.toLowerCase())).toEqual([leg(1, 'e1'), leg(2, 'e2')]);
    expect(storedLegs(bob)).toEqual([]);
    expect(storedLegs(undefined)).toEqual([]);
    storeLegs(alice, []);
    expect(memory.size).toBe(0);
  });

  it('reads unreadable or foreign data as an empty slip', () => {
    memory.set(`oddsbook.parlay-legs.${alice.toLowerCase()}`, 'not json');
    expect(storedLegs(alice)).toEqual([]);
    memory.set(
      `oddsbook.parlay-legs.${alice.toLowerCase()}`,
      JSON.stringify([{ marketHash: 1 }, leg(3, 'e3')]),
    );
    expect(storedLegs(alice)).toEqual([leg(3, 'e3')]);
  });

  it('keeps a request while its offers can be taken, and forgets it after', () => {
    const stored = { request: request('2026-11-29T12:01:03.000Z'), stake: '10' };
    storeRequest(alice, stored as never);
    expect(storedRequest(alice, Date.parse('2026-11-29T12:01:02.000Z'))).toEqual(stored);
    expect(storedRequest(alice, Date.parse('2026-11-29T12:01:03.000Z'))).toBeNull();
    expect(storedRequest(bob, Date.parse('2026-11-29T12:00:00.000Z'))).toBeNull();
    storeRequest(alice, null);
    expect(memory.size).toBe(0);
  });
});
