import type { ActiveLeague, LiveScore, Market } from '@oddsbook/protocol';
import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { useEffect, useState } from 'preact/hooks';
import { plainError } from '../lib/errors.js';
import { usePolled } from '../lib/hooks.js';
import { follow } from '../lib/realtime.js';
import { publicClient } from '../lib/session.js';
import { ErrorLine } from './section.js';

/** Without realtime, scores are polled at this interval. */
const SCORES_POLL_MS = 5000;
const FIXTURE_STATUS: Record<number, string> = { 1: 'not started', 2: 'live', 9: 'about to start' };

/** Sports and their leagues, a league's fixtures with live scores, a fixture's markets. */
export function CatalogNav(props: {
  centrifuge: Centrifuge | null;
  selected: Market | null;
  onSelect: (market: Market) => void;
}) {
  const client = publicClient();
  const sports = usePolled(() => client.listSports(), 0, []);
  const leagues = usePolled(() => client.listActiveLeagues(), 30_000, []);
  const [leagueId, setLeagueId] = useState<number>();
  const [eventId, setEventId] = useState<string>();
  const fixtures = usePolled(
    leagueId === undefined ? null : () => client.listActiveFixtures({ leagueId }),
    30_000,
    [leagueId],
  );
  const markets = usePolled(
    eventId === undefined ? null : () => client.listActiveMarkets({ eventId, pageSize: 50 }),
    30_000,
    [eventId],
  );
  const scores = useLiveScores(fixtures.value?.map((f) => f.eventId) ?? [], props.centrifuge);

  useEffect(() => {
    if (leagueId === undefined && leagues.value?.[0]) setLeagueId(leagues.value[0].leagueId);
  }, [leagues.value]);

  const sportLabel = (id: number) => sports.value?.find((s) => s.sportId === id)?.label ?? `Sport ${id}`;
  const bySport = new Map<number, ActiveLeague[]>();
  for (const league of leagues.value ?? [])
    bySport.set(league.sportId, [...(bySport.get(league.sportId) ?? []), league]);

  return (
    <aside class="catalog" data-testid="catalog">
      <h2>Sports</h2>
      {[...bySport].map(([sportId, list]) => (
        <div key={sportId} class="sport">
          <h4>{sportLabel(sportId)}</h4>
          <ul>
            {list.map((l) => (
              <li key={l.leagueId}>
                <button
                  type="button"
                  class={`link ${l.leagueId === leagueId ? 'active' : ''}`}
                  onClick={() => {
                    setLeagueId(l.leagueId);
                    setEventId(undefined);
                  }}
                >
                  {l.label}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ))}
      {leagues.value?.length === 0 && <p class="muted">No active leagues.</p>}
      <h2>Games</h2>
      <ul class="fixtures">
        {(fixtures.value ?? []).map((f) => {
          const score = scores[f.eventId];
          return (
            <li key={f.eventId}>
              <button
                type="button"
                data-testid="fixture"
                class={`fixture ${f.eventId === eventId ? 'active' : ''}`}
                onClick={() => setEventId(f.eventId)}
              >
                <span>
                  {f.teamOneName} – {f.teamTwoName}
                </span>
                <span class="score" data-testid="score">
                  {score
                    ? `${score.teamOneScore} : ${score.teamTwoScore} ${score.currentPeriod}`
                    : (FIXTURE_STATUS[f.status] ?? '')}
                </span>
                <small class="muted">{new Date(f.gameTime * 1000).toLocaleString()}</small>
              </button>
            </li>
          );
        })}
      </ul>
      {eventId && (
        <>
          <h2>Markets</h2>
          <ul class="markets">
            {(markets.value?.markets ?? []).map((m) => (
              <li key={m.marketHash}>
                <button
                  type="button"
                  data-testid="market"
                  class={`link ${props.selected?.marketHash === m.marketHash ? 'active' : ''}`}
                  onClick={() => props.onSelect(m)}
                >
                  {marketLabel(m)}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <ErrorLine error={sports.error ?? leagues.error ?? fixtures.error ?? markets.error} text={plainError} />
    </aside>
  );
}

export function marketLabel(m: Market): string {
  return `${m.outcomeOneName} / ${m.outcomeTwoName}`;
}

/** Live scores of the shown fixtures: from REST, then `fixtures:live_scores` (or a poll without realtime). */
function useLiveScores(eventIds: string[], centrifuge: Centrifuge | null): Record<string, LiveScore> {
  const [scores, setScores] = useState<Record<string, LiveScore>>({});
  const key = eventIds.slice(0, 50).join(',');
  useEffect(() => {
    setScores({});
    if (!key) return;
    const load = () =>
      publicClient()
        .getLiveScores(key.split(','))
        .then((list) => setScores(Object.fromEntries(list.map((s) => [s.sportXEventId, s]))))
        .catch(() => undefined);
    if (centrifuge) {
      return follow(centrifuge, GLOBAL_CHANNELS.live_scores, {
        onData: (s) => {
          if (key.split(',').includes(s.sportXEventId))
            setScores((old) => ({ ...old, [s.sportXEventId]: s }));
        },
        reseed: () => void load(),
      });
    }
    void load();
    const timer = setInterval(load, SCORES_POLL_MS);
    return () => clearInterval(timer);
  }, [key, centrifuge]);
  return scores;
}
