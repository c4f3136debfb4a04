import { describe, expect, it } from 'vitest';
import { computeMarketHash } from './market-hash.js';

const ARSENAL_AH = {
  eventId: 'L1000001',
  type: 3,
  line: '-0.75',
  outcomeOneName: 'Arsenal -0.75',
  outcomeTwoName: 'Chelsea +0.75',
};

describe('computeMarketHash', () => {
  it('is keccak256(abi.encode(eventId, type, line, outcomeOneName, outcomeTwoName)): a pinned vector', () => {
    expect(computeMarketHash(ARSENAL_AH)).toBe(
      '0x78e56f90ee90495af58f25b5b755c3548484ad5f21171c59925a012b62440f94',
    );
  });

  it('changes with every defining field and only with them', () => {
    const base = computeMarketHash(ARSENAL_AH);
    expect(computeMarketHash({ ...ARSENAL_AH })).toBe(base);
    const variants = [
      { ...ARSENAL_AH, eventId: 'L1000002' },
      { ...ARSENAL_AH, type: 342 },
      { ...ARSENAL_AH, line: '-0.5' },
      { ...ARSENAL_AH, line: null },
      { ...ARSENAL_AH, outcomeOneName: 'Arsenal -0.5' },
      { ...ARSENAL_AH, outcomeTwoName: 'Chelsea +0.5' },
      // Swapping outcomes is a different market (outcome one pays on the other side).
      { ...ARSENAL_AH, outcomeOneName: ARSENAL_AH.outcomeTwoName, outcomeTwoName: ARSENAL_AH.outcomeOneName },
    ];
    const hashes = new Set(variants.map(computeMarketHash));
    expect(hashes.size).toBe(variants.length);
    expect(hashes.has(base)).toBe(false);
  });

  it('cannot be confused by moving text between fields (ABI encoding is length-prefixed)', () => {
    const a = computeMarketHash({ ...ARSENAL_AH, outcomeOneName: 'A B', outcomeTwoName: 'C' });
    const b = computeMarketHash({ ...ARSENAL_AH, outcomeOneName: 'A', outcomeTwoName: 'B C' });
    expect(a).not.toBe(b);
  });
});
