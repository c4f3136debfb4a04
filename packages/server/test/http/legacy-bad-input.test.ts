import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir, startTestExchange, type TestExchange } from '../helpers/test-exchange.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const HASH = `0x${'ab'.repeat(32)}`;
const SIG = `0x${'11'.repeat(65)}`;

/** Bodies that are wrong in every way a client gets them wrong: each answers 4xx in the legacy shape. */
const BODIES: unknown[] = [
  null,
  [],
  'text',
  42,
  {},
  { orders: 'x' },
  { orders: [{}] },
  { orders: [{ marketHash: HASH, maker: ADDRESS, totalBetSize: '1e9', percentageOdds: '-1' }] },
  {
    orders: [
      {
        marketHash: HASH,
        maker: ADDRESS,
        totalBetSize: '9'.repeat(78),
        percentageOdds: '9'.repeat(78),
        baseToken: ADDRESS,
        expiry: 2209006800,
        apiExpiry: 9_999_999_999_999,
        executor: ADDRESS,
        salt: '9'.repeat(78),
        isMakerBettingOutcomeOne: true,
        signature: SIG,
      },
    ],
  },
  {
    market: HASH,
    baseToken: ADDRESS,
    isTakerBettingOutcomeOne: true,
    stakeWei: '9'.repeat(78),
    desiredOdds: '9'.repeat(78),
    oddsSlippage: -5,
    taker: ADDRESS,
    takerSig: SIG,
    fillSalt: '0xzz',
  },
  { orderHashes: ['0x12'], signature: SIG, salt: HASH, maker: ADDRESS, timestamp: -1 },
  { orderHashes: [HASH], signature: '0x', salt: HASH, maker: ADDRESS, timestamp: 1.5 },
  { sportXeventId: '', signature: SIG, salt: HASH, maker: ADDRESS, timestamp: 1 },
  { signature: SIG, salt: 'salt', maker: 'maker', timestamp: '1' },
  { signature: SIG, salt: HASH, maker: ADDRESS, timestamp: Math.floor(Date.now() / 1000) },
];

const QUERIES: [string, string[]][] = [
  [
    '/orders',
    ['', '?maker=nope', '?marketHashes=', '?orderHashes=0x1', `?marketHashes=${HASH},zz`, '?sportXeventId='],
  ],
  [
    '/orders/odds/best',
    [
      '',
      '?baseToken=x',
      `?baseToken=${ADDRESS}&leagueIds=a`,
      `?baseToken=${ADDRESS}&marketHashes=${HASH}&leagueIds=1`,
    ],
  ],
  [
    '/trades',
    [
      '',
      '?bettor=x',
      '?startDate=-1',
      '?pageSize=0',
      '?pageSize=301&startDate=1',
      '?marketHashes=x',
      '?paginationKey=%00&startDate=1',
    ],
  ],
  ['/trades/orders', ['', '?orderHashes=', '?orderHashes=0x12']],
  ['/trades/consolidated', ['', '?bettor=x', `?bettor=${ADDRESS}&perPage=0`, `?bettor=${ADDRESS}&page=-1`]],
];

describe('bad input to the legacy routes', () => {
  let t: TestExchange;
  beforeAll(async () => {
    const start = Math.floor(Date.now() / 1000);
    t = await startTestExchange({
      env: { V2_CUTOVER_AT: String(start + 3_600), V2_HISTORY_REMOVED_AT: String(start + 7_200) },
    });
  });
  afterAll(async () => {
    await t.close();
    removeDataDir(t.dataDir);
  });

  const expectLegacyFailure = (response: { statusCode: number; json(): unknown }, what: string) => {
    expect(response.statusCode >= 400 && response.statusCode < 500, `${what}: ${response.statusCode}`).toBe(
      true,
    );
    expect(response.json(), what).toMatchObject({ status: 'failure', errorCode: expect.any(String) });
  };

  it('answers every malformed body 4xx {status: "failure", errorCode}, never a 500', async () => {
    for (const url of [
      '/orders/new',
      '/orders/fill/v2',
      '/orders/cancel/v2',
      '/orders/cancel/event',
      '/orders/cancel/all',
    ]) {
      for (const body of BODIES) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectLegacyFailure(response, `${url} ${JSON.stringify(body).slice(0, 80)}`);
      }
      const text = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      });
      expectLegacyFailure(text, `${url} text/plain`);
      const broken = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      expect(broken.json()).toEqual({ status: 'failure', errorCode: 'MALFORMED_JSON' });
    }
  });

  it('answers every malformed query 4xx {status: "failure", errorCode}, never a 500', async () => {
    for (const [path, queries] of QUERIES)
      for (const query of queries)
        expectLegacyFailure(await t.app.inject({ method: 'GET', url: `${path}${query}` }), `${path}${query}`);
  });
});
