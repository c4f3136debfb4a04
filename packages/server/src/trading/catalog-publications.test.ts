import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { fixtureToWire, liveScoreToWire, marketToWire } from '../catalog/wire.js';
import type { FixtureView, LiveScoreRecord, MarketView } from '../store/repositories.js';
import { catalogPublications } from './catalog-publications.js';

const fixture: FixtureView = {
  eventId: 'L1-E1',
  leagueId: 1,
  teamOneId: 10,
  teamTwoId: 11,
  gameTime: 1_800_000_000,
  status: 1,
  createdAt: 1,
  updatedAt: 2,
  teamOneName: 'Home',
  teamTwoName: 'Away',
  leagueLabel: 'League',
  leagueLiveDelayMs: null,
  sportId: 1,
  sportLabel: 'Basketball',
};
const market: MarketView = {
  marketHash: `0x${'cd'.repeat(32)}`,
  eventId: fixture.eventId,
  type: 52,
  line: null,
  outcomeOneName: 'Home',
  outcomeTwoName: 'Away',
  outcomeVoidName: 'NO_CONTEST',
  mainLine: true,
  liveEnabled: true,
  bettingDelayMs: null,
  minBetSize: 1_000_000n,
  status: 'ACTIVE',
  outcome: null,
  reportedDate: null,
  quarterLineLegs: null,
  createdAt: 1,
  updatedAt: 2,
  fixture,
};
const score: LiveScoreRecord = {
  eventId: fixture.eventId,
  teamOneScore: 3,
  teamTwoScore: 1,
  currentPeriod: 'Q2',
  periodTime: '-1',
  periods: [],
  extra: '{}',
  createdAt: 1,
  updatedAt: 2,
};

describe('catalogPublications', () => {
  it('maps each catalog change to its channel in the REST record shape', () => {
    expect(catalogPublications({ type: 'fixture', fixture })).toEqual([
      { channel: GLOBAL_CHANNELS.fixtures, data: fixtureToWire(fixture) },
    ]);
    expect(catalogPublications({ type: 'market', market })).toEqual([
      { channel: GLOBAL_CHANNELS.markets, data: marketToWire(market) },
    ]);
    expect(catalogPublications({ type: 'liveScore', fixture, liveScore: score })).toEqual([
      { channel: GLOBAL_CHANNELS.live_scores, data: liveScoreToWire(score, fixture) },
    ]);
    expect(
      catalogPublications({
        type: 'mainLine',
        eventId: 'L1-E1',
        marketType: 52,
        marketHash: market.marketHash,
      }),
    ).toEqual([
      {
        channel: GLOBAL_CHANNELS.main_line,
        data: { marketHash: market.marketHash, marketType: 52, sportXEventId: 'L1-E1' },
      },
    ]);
  });
});
