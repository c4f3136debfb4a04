import type { CatalogService, CreateMarketInput } from './catalog-service.js';
import { MARKET_TYPE } from './market-types.js';
import { SPORT_ID } from './sports.js';

type MarketStyle = {
  moneyline: number;
  spread: number;
  total: number;
  /** Main spread magnitude and total line; each fixture shifts them a little. */
  spreadBase: number;
  totalBase: number;
};

const US_STYLE = (spreadBase: number, totalBase: number): MarketStyle => ({
  moneyline: MARKET_TYPE.moneylineInclOvertime,
  spread: MARKET_TYPE.spreadInclOvertime,
  total: MARKET_TYPE.totalInclOvertime,
  spreadBase,
  totalBase,
});

type DemoLeague = {
  sportId: number;
  label: string;
  /** Production's live delay for the league (research anchors §1.9); absent follows the sport. */
  liveDelaySeconds?: number;
  style: MarketStyle;
  /** The first fixture is in play when set: its period labels and running scores. */
  live?: { periods: [string, string]; scores: [[number, number], [number, number]] };
  fixtures: [string, string][];
};

const DEMO_LEAGUES: readonly DemoLeague[] = [
  {
    sportId: SPORT_ID.basketball,
    label: 'NBA',
    liveDelaySeconds: 4,
    style: US_STYLE(4.5, 224.5),
    live: {
      periods: ['1st Quarter', '2nd Quarter'],
      scores: [
        [28, 24],
        [51, 49],
      ],
    },
    fixtures: [
      ['Los Angeles Lakers', 'Boston Celtics'],
      ['Golden State Warriors', 'Denver Nuggets'],
      ['Milwaukee Bucks', 'Miami Heat'],
      ['New York Knicks', 'Philadelphia 76ers'],
      ['Phoenix Suns', 'Dallas Mavericks'],
      ['Chicago Bulls', 'Cleveland Cavaliers'],
    ],
  },
  {
    sportId: SPORT_ID.football,
    label: 'NFL',
    liveDelaySeconds: 3,
    style: US_STYLE(3.5, 45.5),
    fixtures: [
      ['Kansas City Chiefs', 'Buffalo Bills'],
      ['Philadelphia Eagles', 'Dallas Cowboys'],
      ['San Francisco 49ers', 'Green Bay Packers'],
      ['Baltimore Ravens', 'Cincinnati Bengals'],
    ],
  },
  {
    sportId: SPORT_ID.hockey,
    label: 'NHL',
    liveDelaySeconds: 5,
    style: US_STYLE(1.5, 5.5),
    live: {
      periods: ['1st Period', '2nd Period'],
      scores: [
        [1, 0],
        [2, 1],
      ],
    },
    fixtures: [
      ['Toronto Maple Leafs', 'Montreal Canadiens'],
      ['New York Rangers', 'Boston Bruins'],
      ['Edmonton Oilers', 'Colorado Avalanche'],
      ['Florida Panthers', 'Tampa Bay Lightning'],
    ],
  },
  {
    sportId: SPORT_ID.baseball,
    label: 'MLB',
    liveDelaySeconds: 5,
    style: {
      moneyline: MARKET_TYPE.moneyline,
      spread: MARKET_TYPE.spread,
      total: MARKET_TYPE.total,
      spreadBase: 1.5,
      totalBase: 8.5,
    },
    fixtures: [
      ['New York Yankees', 'Los Angeles Dodgers'],
      ['Houston Astros', 'Atlanta Braves'],
    ],
  },
  {
    sportId: SPORT_ID.soccer,
    label: 'English Premier League',
    liveDelaySeconds: 6,
    style: {
      moneyline: MARKET_TYPE.oneXTwo,
      spread: MARKET_TYPE.spread,
      total: MARKET_TYPE.total,
      spreadBase: 0.5,
      totalBase: 2.5,
    },
    live: {
      periods: ['1st Half', '2nd Half'],
      scores: [
        [1, 0],
        [1, 1],
      ],
    },
    fixtures: [
      ['Arsenal', 'Chelsea'],
      ['Liverpool', 'Manchester City'],
      ['Manchester United', 'Tottenham Hotspur'],
      ['Newcastle United', 'Aston Villa'],
      ['Brighton', 'West Ham United'],
      ['Everton', 'Fulham'],
    ],
  },
  {
    sportId: SPORT_ID.soccer,
    label: 'La Liga',
    liveDelaySeconds: 6,
    style: {
      moneyline: MARKET_TYPE.oneXTwo,
      spread: MARKET_TYPE.spread,
      total: MARKET_TYPE.total,
      spreadBase: 0.5,
      totalBase: 2.5,
    },
    fixtures: [
      ['Real Madrid', 'Barcelona'],
      ['Atlético Madrid', 'Sevilla'],
      ['Real Sociedad', 'Villarreal'],
      ['Athletic Club', 'Real Betis'],
    ],
  },
  {
    sportId: SPORT_ID.tennis,
    label: 'ATP',
    style: {
      moneyline: MARKET_TYPE.moneyline,
      spread: 201,
      total: MARKET_TYPE.total,
      spreadBase: 2.5,
      totalBase: 22.5,
    },
    live: {
      periods: ['1st Set', '2nd Set'],
      scores: [
        [0, 0],
        [1, 0],
      ],
    },
    fixtures: [
      ['Jannik Sinner', 'Carlos Alcaraz'],
      ['Novak Djokovic', 'Daniil Medvedev'],
      ['Alexander Zverev', 'Holger Rune'],
      ['Taylor Fritz', 'Casper Ruud'],
    ],
  },
];

const HOUR = 3600;
const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

export type DemoSeedSummary = { leagues: number; fixtures: number; markets: number; liveFixtures: number };

/**
 * Seeds a fresh catalog with a small but lively world: 7 leagues, 30 fixtures over the coming days
 * (4 in play with live scores), each with a moneyline, a spread and a total, and one quarter-line
 * market (Arsenal vs Chelsea, asian handicap -0.75, with its legs -1 and -0.5). It goes through the same service calls as the
 * operator API, so the demo data is exactly what an operator could have created.
 */
export async function seedDemoCatalog(
  catalog: CatalogService,
  options: { now: number },
): Promise<DemoSeedSummary> {
  const nextHour = Math.ceil(options.now / 1000 / HOUR) * HOUR;
  const summary: DemoSeedSummary = { leagues: 0, fixtures: 0, markets: 0, liveFixtures: 0 };
  for (const [leagueIndex, demo] of DEMO_LEAGUES.entries()) {
    const league = await catalog.createLeague({
      sportId: demo.sportId,
      label: demo.label,
      ...(demo.liveDelaySeconds !== undefined ? { liveDelaySeconds: demo.liveDelaySeconds } : {}),
    });
    summary.leagues += 1;
    for (const [index, [teamOneName, teamTwoName]] of demo.fixtures.entries()) {
      const live = index === 0 ? demo.live : undefined;
      // One upcoming fixture per league and day, leagues staggered by three hours: about five days.
      const gameTime = live ? nextHour - 2 * HOUR : nextHour + (2 + 22 * index + 3 * leagueIndex) * HOUR;
      const fixture = await catalog.createFixture({
        leagueId: league.leagueId,
        teamOneName,
        teamTwoName,
        gameTime,
      });
      const { eventId } = fixture;
      const s = demo.style;
      const spread = s.spreadBase + (index % 3);
      const total = s.totalBase + (index % 2);
      const markets: Omit<CreateMarketInput, 'eventId'>[] = [
        s.moneyline === MARKET_TYPE.oneXTwo
          ? { type: s.moneyline, outcomeOneName: teamOneName, outcomeTwoName: `Not ${teamOneName}` }
          : { type: s.moneyline, outcomeOneName: teamOneName, outcomeTwoName: teamTwoName },
        {
          type: s.spread,
          line: -spread,
          outcomeOneName: `${teamOneName} ${signed(-spread)}`,
          outcomeTwoName: `${teamTwoName} ${signed(spread)}`,
        },
        { type: s.total, line: total, outcomeOneName: `Over ${total}`, outcomeTwoName: `Under ${total}` },
      ];
      if (teamOneName === 'Arsenal') {
        // A quarter line is settled by its whole-line and half-line legs: -1 here, -0.5 being the main spread.
        markets.push({
          type: MARKET_TYPE.spread,
          line: -1,
          outcomeOneName: 'Arsenal -1',
          outcomeTwoName: 'Chelsea +1',
          mainLine: false,
        });
        markets.push({
          type: MARKET_TYPE.spread,
          line: -0.75,
          outcomeOneName: 'Arsenal -0.75',
          outcomeTwoName: 'Chelsea +0.75',
          mainLine: false,
        });
      }
      for (const market of markets) {
        await catalog.createMarket({ eventId, ...market });
        summary.markets += 1;
      }
      summary.fixtures += 1;
      if (live) {
        await catalog.setFixtureStatus(eventId, 2);
        for (const [period, [one, two]] of live.periods.map((p, i) => [p, live.scores[i]!] as const)) {
          await catalog.recordScore(eventId, { teamOneScore: one, teamTwoScore: two, currentPeriod: period });
        }
        summary.liveFixtures += 1;
      }
    }
  }
  return summary;
}
