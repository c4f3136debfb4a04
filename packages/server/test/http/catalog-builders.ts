import type { TestExchange } from '../helpers/test-exchange.js';

/** Builds catalog data through the operator API, failing loudly on anything but 200. */
export function catalogBuilders(t: TestExchange) {
  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await t.app.inject({ method: 'POST', url, headers: t.admin, payload });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json().data;
  };
  return {
    post,
    async league(payload: { sportId: number; label: string; liveDelaySeconds?: number }): Promise<number> {
      return (await post('/admin/leagues', payload)).leagueId;
    },
    async fixture(payload: {
      leagueId: number;
      teamOneName: string;
      teamTwoName: string;
      gameTime: number;
    }): Promise<string> {
      return (await post('/admin/fixtures', payload)).eventId;
    },
    async market(payload: Record<string, unknown>): Promise<`0x${string}`> {
      return (await post('/admin/markets', payload)).marketHash;
    },
    async status(eventId: string, status: number) {
      return post(`/admin/fixtures/${eventId}/status`, { status });
    },
    /** A fixture with a moneyline, a spread and a total. */
    async fixtureWithMarkets(options: {
      leagueId: number;
      teamOneName: string;
      teamTwoName: string;
      gameTime: number;
      spread?: number;
      total?: number;
    }) {
      const { teamOneName: one, teamTwoName: two, spread = -3.5, total = 200.5, ...rest } = options;
      const eventId = await this.fixture({ ...rest, teamOneName: one, teamTwoName: two });
      const moneyline = await this.market({ eventId, type: 52, outcomeOneName: one, outcomeTwoName: two });
      const spreadHash = await this.market({
        eventId,
        type: 3,
        line: spread,
        outcomeOneName: `${one} ${spread}`,
        outcomeTwoName: `${two} ${-spread}`,
      });
      const totalHash = await this.market({
        eventId,
        type: 2,
        line: total,
        outcomeOneName: `Over ${total}`,
        outcomeTwoName: `Under ${total}`,
      });
      return { eventId, moneyline, spread: spreadHash, total: totalHash };
    },
  };
}
