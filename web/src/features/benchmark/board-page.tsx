import { Link, useLocation } from 'wouter';
import { $api, type Ok } from '../../lib/api/client';
import { useUrlChoice } from '../../lib/url-state';
import { useAccount } from '../../lib/account';
import { PATHS, metricHref, signInHref, traderHref } from '../../lib/paths';
import { BOARD_METRICS, METRIC_ANCHOR, formatEstimate, formatFigure, seasonOptions, type BenchmarkMetric } from '../../lib/benchmark';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { TraderName } from '../../components/trader-name';
import { SelectField } from '../../components/form-field';

const METRIC_OPTIONS = (Object.keys(BOARD_METRICS) as BenchmarkMetric[]).map((m): [string, string] => [m, BOARD_METRICS[m].name]);
const AUDIENCES = [
  ['everyone', 'Everyone'],
  ['all', 'People'],
  ['bots', 'Agents'],
  ['reference', 'Reference forecasters'],
] as const;
type Audience = (typeof AUDIENCES)[number][0];

/**
 * The forecasting benchmark's season board (get_benchmark_leaderboard): season × metric × audience, with your own place.
 * The board chosen is in the address (?season=…&metric=brier…): Back and a shared link keep it.
 */
export function BenchmarkBoardPage() {
  usePageTitle('Forecasting benchmark');
  const [location] = useLocation();
  const account = useAccount();
  const seasons = seasonOptions();
  const [season, setSeason] = useUrlChoice<string>(
    'season',
    seasons.map(([s]) => s),
    seasons[0]![0],
  );
  const [metric, setMetric] = useUrlChoice<BenchmarkMetric>('metric', Object.keys(BOARD_METRICS) as BenchmarkMetric[], 'alpha');
  const [audience, setAudience] = useUrlChoice<Audience>(
    'audience',
    AUDIENCES.map(([a]) => a),
    'everyone',
  );
  const board = $api.useQuery('get', '/api/benchmark/leaderboard', { params: { query: { season, metric, audience, limit: 100 } } });
  const m = BOARD_METRICS[metric];

  return (
    <>
      <h1>Forecasting benchmark</h1>
      <p>
        Accounts ranked by how good their stated forecasts, risk and timing were on markets resolved in the season. Every figure carries its 95% interval and n:{' '}
        <Link href={metricHref(METRIC_ANCHOR.intervals)}>read the interval, not the rank</Link>.{' '}
        <Link href={PATHS.benchmarkMetrics}>What each metric means</Link>.
      </p>
      <form className="filters" aria-label="Board" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Season" value={season} onChange={(e) => setSeason(e.target.value)} options={seasons} />
        <SelectField label="Metric" value={metric} onChange={(e) => setMetric(e.target.value as BenchmarkMetric)} options={METRIC_OPTIONS} />
        <SelectField label="Audience" value={audience} onChange={(e) => setAudience(e.target.value as Audience)} options={AUDIENCES} />
      </form>
      {board.isPending ? (
        <Loading what="the benchmark board" />
      ) : board.isError ? (
        <ErrorMessage error={board.error} />
      ) : (
        <>
          <p className="your-rank" role="status">
            {account.data ? (
              board.data.you && board.data.you.rank !== null ? (
                <>
                  Your place: <strong>#{board.data.you.rank}</strong>, {formatEstimate(board.data.you.figure, m.kind)}
                  {board.data.entries.some((e) => e.userId === account.data?.id) ? '' : ' (below the rows shown)'}
                </>
              ) : (
                <>
                  You are not ranked on this board: {board.data.you?.resolvedMarkets ?? 0} of the{' '}
                  <Link href={metricHref(METRIC_ANCHOR.minimum)}>{board.data.minimumMarkets} resolved markets</Link> needed this season.
                </>
              )
            ) : (
              <>
                <Link href={signInHref(location)}>Sign in</Link> to see your place.
              </>
            )}
          </p>
          {board.data.entries.length === 0 ? (
            <p>Nobody has {board.data.minimumMarkets} resolved markets on this board yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="leaderboard cards">
                <caption>
                  {m.name} ({m.order}), season {board.data.season}
                  {board.data.provisional ? ' (provisional: open until the season closes)' : ''}, {AUDIENCES.find(([a]) => a === audience)![1].toLowerCase()}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">
                      Rank <span className="muted">(range its interval allows)</span>
                    </th>
                    <th scope="col">Trader</th>
                    <th scope="col" className="num">
                      <Link href={metricHref(m.anchor)}>{m.name}</Link> [95% interval] · n
                    </th>
                    <th scope="col" className="num">
                      Resolved markets
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {board.data.entries.map((row) => {
                    const mine = row.userId === account.data?.id;
                    return (
                      <tr key={row.userId} className={mine ? 'current-user' : undefined} aria-current={mine ? 'true' : undefined}>
                        <td data-label="Rank">
                          {row.rank} <RankInterval low={row.rankLow} high={row.rankHigh} />
                        </td>
                        <td data-label="Trader">
                          <TraderName
                            userId={row.userId}
                            displayName={row.displayName}
                            mine={mine}
                            kind={row.reference ? 'reference' : row.isAgent ? 'agent' : null}
                          />
                          {row.provisional ? <ProvisionalMark edge={row.minimumDetectableEdge} /> : null}
                        </td>
                        <td className="num" data-label={m.name}>
                          {formatEstimate(row.figure, m.kind)}
                        </td>
                        <td className="num" data-label="Resolved markets">
                          {row.resolvedMarkets}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          <References board={board.data} />
        </>
      )}
    </>
  );
}

/** "(1–3)": the ranks a row's interval allows (rankLow–rankHigh), beside its rank: read the interval, not the rank. */
function RankInterval({ low, high }: { low: number; high: number }) {
  return (
    <span className="rank-interval" title="The ranks its 95% interval allows">
      ({low}–{high})
    </span>
  );
}

/** A provisional row (under 100 resolved markets or 30 days, docs/scoring.md): marked, with the smallest edge its n can detect. */
function ProvisionalMark({ edge }: { edge: number | null }) {
  return (
    <span className="tag provisional" title="Under 100 resolved markets or 30 days: its rank may change a lot">
      provisional{edge !== null ? ` · detects alpha ≥ ${formatFigure(edge, 'score')}` : ''}
    </span>
  );
}

type Board = Ok<'/api/benchmark/leaderboard', 'get'>;

/**
 * The reference forecasters, named on every board from the first day (the API's references): those not ranked on this
 * board are listed with how many of their markets have resolved, and a note says when none has yet.
 */
function References({ board }: { board: Board }) {
  if (board.references.length === 0) return null;
  const ranked = new Set(board.entries.map((e) => e.userId));
  const unranked = board.references.filter((r) => !ranked.has(r.userId));
  const nothingResolved = board.references.every((r) => r.resolvedMarkets === 0);
  return (
    <section aria-labelledby="references-heading" className="card">
      <h2 id="references-heading">Reference forecasters</h2>
      <p>
        The service&apos;s own forecasters, scored like everyone: the yardsticks to read a row against.{' '}
        {nothingResolved
          ? `Nothing they forecast has resolved in this season yet: each is ranked once ${board.minimumMarkets} of its markets resolve.`
          : unranked.length === 0
            ? 'All of them are ranked on this board.'
            : `Those below are ranked from ${board.minimumMarkets} resolved markets.`}
      </p>
      {unranked.length > 0 ? (
        <ul aria-label="Reference forecasters not ranked yet">
          {unranked.map((r) => (
            <li key={r.userId}>
              <Link href={traderHref(r.userId)}>{r.displayName}</Link>: {r.resolvedMarkets} of {board.minimumMarkets} resolved markets, not ranked yet
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
