import type { ActiveLeague, LiveScore, Market, SearchResult } from '@oddsbook/protocol';
import { GLOBAL_CHANNELS } from '@oddsbook/protocol';
import type { Centrifuge } from 'centrifuge';
import { useEffect, useState } from 'preact/hooks';
import { marketLabel } from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import { usePolled } from '../lib/hooks.js';
import { follow } from '../lib/realtime.js';
import { publicClient } from '../lib/session.js';
import { ErrorLine } from './section.js';

/** Without realtime, scores are polled at this interval. */
const SCORES_POLL_MS = 5000;
const FIXTURE_STATUS: Record<number, string> = { 1: 'not started', 2: 'in play', 9: 'about to start' };
/** The search route reads 3 characters or more; typing settles this long before it is asked. */
const SEARCH_MIN = 3;
const SEARCH_SETTLE_MS = 300;

/**
 * Sports and their leagues, a league's fixtures with live scores, a fixture's markets, and a search by team
 * name; each list a collapsible section (on a phone they follow the ladder and the bet slip).
 */
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
      <TeamSearch
        onPick={(hit) => {
          setEventId(hit.eventId);
        }}
      />
      <details class="catalog-section" open>
        <summary>
          <h2>Sports</h2>
        </summary>
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
      </details>
      <details class="catalog-section" open>
        <summary>
          <h2>Games</h2>
        </summary>
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
      </details>
      {eventId && (
        <details class="catalog-section" open>
          <summary>
            <h2>Markets</h2>
          </summary>
          <ul class="markets">
            {(markets.value?.markets ?? []).map((m) => {
              const open = isOpenMarket(m);
              return (
                <li key={m.marketHash}>
                  <button
                    type="button"
                    data-testid="market"
                    class={`link ${props.selected?.marketHash === m.marketHash ? 'active' : ''}`}
                    disabled={!open}
                    title={open ? undefined : 'Resolved or closed: no more bets'}
                    onClick={() => props.onSelect(m)}
                  >
                    {marketLabel(m)}
                    {!open && <span class="tag">closed</span>}
                  </button>
                </li>
              );
            })}
          </ul>
        </details>
      )}
      <ErrorLine error={sports.error ?? leagues.error ?? fixtures.error ?? markets.error} text={plainError} />
    </aside>
  );
}

/** Whether a market takes bets: active and not resolved. */
export function isOpenMarket(m: Pick<Market, 'status' | 'outcome'>): boolean {
  return m.status === 'ACTIVE' && m.outcome === undefined;
}

/** A search box on `GET /search`: fixtures whose team names match, picked to show their markets. */
function TeamSearch(props: { onPick: (hit: SearchResult) => void }) {
  const [text, setText] = useState('');
  const [hits, setHits] = useState<SearchResult[] | null>(null);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const query = text.trim();
    setError(undefined);
    if (query.length < SEARCH_MIN) {
      setHits(null);
      return;
    }
    let stopped = false;
    const timer = setTimeout(() => {
      publicClient()
        .search(query)
        .then((found) => {
          if (!stopped) setHits(found);
        })
        .catch((e: unknown) => {
          if (!stopped) setError(e);
        });
    }, SEARCH_SETTLE_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [text]);
  return (
    <div class="team-search">
      <input
        type="search"
        aria-label="Search teams"
        placeholder="Search teams (3+ letters)"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
      />
      {hits && (
        <ul class="search-hits" data-testid="search-hits">
          {hits.map((hit) => (
            <li key={hit.eventId}>
              <button
                type="button"
                class="fixture"
                data-testid="search-hit"
                onClick={() => {
                  props.onPick(hit);
                  setText('');
                }}
              >
                <span>
                  {hit.teamOneName} – {hit.teamTwoName}
                </span>
                <small class="muted">
                  {hit.leagueLabel} · {new Date(hit.gameTime * 1000).toLocaleString()}
                </small>
              </button>
            </li>
          ))}
          {hits.length === 0 && <li class="muted">No active game matches.</li>}
        </ul>
      )}
      <ErrorLine error={error} text={plainError} />
    </div>
  );
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
