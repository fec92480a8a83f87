import { useMemo, useState } from 'react';
import { QueryClient, QueryClientProvider, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { runClient, type RunClient } from '../../lib/api/run-client';
import { readRetry } from '../../lib/api/read-retry';
import { cents, dateTime } from '../../lib/format';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import type { StoredRun } from './stored-run';
import { RunTicket } from './run-ticket';
import { RunAccount } from './run-account';
import { RunRecord } from './run-record';
import { EndRunButton } from './end-run';
import { scenarioWords } from './scenario-words';

/**
 * One run, played with its own key and its own query cache: a stepped run changes only when the person acts, so what
 * was read stays current (no refetch by age) and every step, trade or forecast re-reads what it changed; a read refused
 * by the rate limit waits and tries again, as everywhere in the app.
 */
export function RunView({ run, onLeave }: { run: StoredRun; onLeave: () => void }) {
  const client = useMemo(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, refetchOnWindowFocus: false, ...readRetry }, mutations: { retry: false } } }),
    [run.runId],
  );
  const rc = useMemo(() => runClient(run.apiKey), [run.apiKey]);
  return (
    <QueryClientProvider client={client}>
      <Run runId={run.runId} rc={rc} onLeave={onLeave} />
    </QueryClientProvider>
  );
}

const HOUR_S = 3600;
const DAY_S = 86_400;
type Step = { to: 'next_news' } | { by: number } | 'end';

function Run({ runId, rc, onLeave }: { runId: string; rc: RunClient; onLeave: () => void }) {
  const client = useQueryClient();
  const path = { params: { path: { runId } } };
  const state = rc.$api.useQuery('get', '/api/replays/{runId}', path);
  const [marketId, setMarketId] = useState<string | null>(null);
  const step = useMutation({
    mutationFn: async (s: Step) =>
      s === 'end'
        ? (await rc.api.POST('/api/replays/{runId}/end', path)).data!
        : (await rc.api.POST('/api/replays/{runId}/advance', { ...path, body: s })).data!,
    // The clock moved: prices, news, positions (and once ended, the record) are read again.
    onSuccess: () => client.invalidateQueries(),
  });

  if (state.isPending) return <Loading what="the replay" />;
  if (state.isError) {
    return (
      <section className="card" aria-labelledby="replay-lost">
        <h2 id="replay-lost">This replay cannot be read</h2>
        <ErrorMessage error={state.error} />
        <button type="button" onClick={onLeave}>
          Start another replay
        </button>
      </section>
    );
  }
  const r = state.data;
  const ended = r.state === 'ended';
  const played = Date.parse(r.clock) - Date.parse(r.startAt);
  const length = Date.parse(r.endAt) - Date.parse(r.startAt);
  const what = scenarioWords(r.scenario);

  return (
    <>
      <section className="card replay-clock" aria-labelledby="replay-clock">
        <h2 id="replay-clock">Replay clock</h2>
        <p className="replay-now">
          {ended ? 'Ended at ' : 'It is now '}
          <time dateTime={r.clock}>{dateTime(r.clock)}</time> in the replay
        </p>
        <progress max={length} value={Math.min(played, length)} aria-label="Part of the replay played" />
        <p className="muted">
          {what} · from {dateTime(r.startAt)} to {dateTime(r.endAt)}
        </p>
        {ended ? (
          <div className="tabs">
            <button type="button" onClick={onLeave}>
              Start another replay
            </button>
          </div>
        ) : (
          <div className="tabs" role="group" aria-label="Move the clock">
            <button type="button" disabled={step.isPending} onClick={() => step.mutate({ to: 'next_news' })}>
              Next news
            </button>
            <button type="button" className="secondary" disabled={step.isPending} onClick={() => step.mutate({ by: HOUR_S })}>
              +1 hour
            </button>
            <button type="button" className="secondary" disabled={step.isPending} onClick={() => step.mutate({ by: DAY_S })}>
              +1 day
            </button>
            <EndRunButton disabled={step.isPending} onEnd={() => step.mutate('end')} />
            {/* Leaving does not end it: the run waits in the list of runs, for this tab or any other. */}
            <button type="button" className="secondary" onClick={onLeave}>
              All my replays
            </button>
          </div>
        )}
        <div aria-live="polite">
          {step.isPending ? <p className="muted">{step.variables === 'end' ? 'Settling every market…' : 'Moving the clock…'}</p> : null}
        </div>
        {step.isError ? <ErrorMessage error={step.error} /> : null}
      </section>
      {ended ? <RunRecord record={r.record} suite={'seed' in r.scenario ? r.scenario.suite : null} /> : null}
      <div className="replay-columns">
        {/* The ticket above the news: on a phone it stays near the clock, not below every story. */}
        <div>
          {marketId && !ended ? <RunTicket key={marketId} rc={rc} marketId={marketId} /> : null}
          <News rc={rc} onPick={ended ? null : setMarketId} />
        </div>
        <div>
          <Markets rc={rc} onPick={ended ? null : setMarketId} />
          <RunAccount rc={rc} />
        </div>
      </div>
    </>
  );
}

/** News items a page: a phone keeps the ticket and the clock within reach. */
const NEWS_PAGE = 6;

/** The run's news so far, newest first (list_news with the run's key sees only the run's venue, up to its clock). */
function News({ rc, onPick }: { rc: RunClient; onPick: ((marketId: string) => void) | null }) {
  const news = useInfiniteQuery({
    queryKey: ['get', '/api/news', 'pages'],
    queryFn: async ({ pageParam }) =>
      (await rc.api.GET('/api/news', { params: { query: { limit: NEWS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } } })).data!,
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const items = news.data?.pages.flatMap((p) => p.news) ?? [];
  return (
    <section className="card" aria-labelledby="replay-news">
      <h2 id="replay-news">News</h2>
      {news.isPending ? (
        <Loading what="the news" />
      ) : news.isError ? (
        <ErrorMessage error={news.error} />
      ) : items.length === 0 ? (
        <p>No news yet. Press Next news to move the clock to the next story.</p>
      ) : (
        <ul className="replay-news">
          {items.map((n) => (
            <li key={n.id}>
              <h3>{n.headline}</h3>
              <p className="muted">
                <time dateTime={n.publishedAt}>{dateTime(n.publishedAt)}</time>
              </p>
              <p>{n.body}</p>
              {onPick ? (
                <button type="button" className="secondary" onClick={() => onPick(n.marketId)}>
                  Trade this market<span className="visually-hidden">: {n.question}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {news.hasNextPage ? (
        <button type="button" className="secondary" disabled={news.isFetchingNextPage} onClick={() => void news.fetchNextPage()}>
          {news.isFetchingNextPage ? 'Loading older news…' : 'Show older news'}
        </button>
      ) : null}
    </section>
  );
}

/** A few of the run's most traded markets with their chance of YES. */
function Markets({ rc, onPick }: { rc: RunClient; onPick: ((marketId: string) => void) | null }) {
  const markets = rc.$api.useQuery('get', '/api/markets', { params: { query: { limit: 5 } } });
  return (
    <section className="card" aria-labelledby="replay-markets">
      <h2 id="replay-markets">Markets</h2>
      {markets.isPending ? (
        <Loading what="the markets" />
      ) : markets.isError ? (
        <ErrorMessage error={markets.error} />
      ) : markets.data.markets.length === 0 ? (
        <p>No market is open now.</p>
      ) : (
        <ul className="replay-markets">
          {markets.data.markets.map((m) => (
            <li key={m.id}>
              <span>{m.question}</span>
              <span className="muted">YES {cents(m.yesPrice)}</span>
              {onPick ? (
                <button type="button" className="secondary" onClick={() => onPick(m.id)}>
                  Trade<span className="visually-hidden">: {m.question}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
