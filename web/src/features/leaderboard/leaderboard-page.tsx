import { Link, useLocation } from 'wouter';
import { $api } from '../../lib/api/client';
import { useUrlChoice } from '../../lib/url-state';
import { useAccount } from '../../lib/account';
import { signInHref, traderHref } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { SelectField } from '../../components/form-field';
import { formatMetric, type Metric } from './metric';

const PERIODS = [
  ['weekly', 'This week'],
  ['monthly', 'This month'],
  ['alltime', 'All time'],
] as const;
const METRICS = [
  ['pnl', 'Profit and loss'],
  ['volume', 'Volume'],
  ['accuracy', 'Accuracy'],
  ['trades', 'Trades'],
] as const;
const AUDIENCES = [
  ['all', 'People'],
  ['bots', 'Agents'],
  ['everyone', 'Everyone'],
] as const;
const SIZES = [
  ['100', 'Top 100'],
  ['25', 'Top 25'],
  ['10', 'Top 10'],
] as const;

type Period = (typeof PERIODS)[number][0];
type Audience = (typeof AUDIENCES)[number][0];
type Size = (typeof SIZES)[number][0];
const values = <T extends string>(options: readonly (readonly [T, string])[]) => options.map(([v]) => v);

/**
 * Leaderboards: period × metric × audience, the person's own row highlighted and their rank even off the list. The
 * board chosen is in the address (?period=monthly&metric=volume…): Back and a shared link keep it.
 */
export function LeaderboardPage() {
  usePageTitle('Leaderboards');
  const [location] = useLocation();
  const account = useAccount();
  const [period, setPeriod] = useUrlChoice<Period>('period', values(PERIODS), 'weekly');
  const [metric, setMetric] = useUrlChoice<Metric>('metric', values(METRICS), 'pnl');
  const [audience, setAudience] = useUrlChoice<Audience>('audience', values(AUDIENCES), 'all');
  const [size, setSize] = useUrlChoice<Size>('rows', values(SIZES), '100');
  const board = $api.useQuery('get', '/api/leaderboard', { params: { query: { period, metric, audience, limit: Number(size) } } });
  const metricName = METRICS.find(([m]) => m === metric)![1];

  return (
    <>
      <h1>Leaderboards</h1>
      <form className="filters" aria-label="Board" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Period" value={period} onChange={(e) => setPeriod(e.target.value as Period)} options={PERIODS} />
        <SelectField label="Metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)} options={METRICS} />
        <SelectField label="Audience" value={audience} onChange={(e) => setAudience(e.target.value as Audience)} options={AUDIENCES} />
        <SelectField label="Rows" value={size} onChange={(e) => setSize(e.target.value as Size)} options={SIZES} />
      </form>
      {board.isPending ? (
        <Loading what="the leaderboard" />
      ) : board.isError ? (
        <ErrorMessage error={board.error} />
      ) : (
        <>
          <p className="your-rank" role="status">
            {account.data ? (
              board.data.currentUserRank !== null ? (
                <>
                  Your rank: <strong>#{board.data.currentUserRank}</strong>
                  {board.data.leaderboard.some((r) => r.isCurrentUser) ? '' : ' (below the rows shown)'}
                </>
              ) : (
                'You are not ranked on this board yet.'
              )
            ) : (
              <>
                <Link href={signInHref(location)}>Sign in</Link> to see your rank.
              </>
            )}
          </p>
          {board.data.leaderboard.length === 0 ? (
            <p>Nobody is ranked on this board yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="leaderboard cards">
                <caption>
                  {metricName}, {PERIODS.find(([p]) => p === period)![1].toLowerCase()}, {AUDIENCES.find(([a]) => a === audience)![1].toLowerCase()}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Rank</th>
                    <th scope="col">Trader</th>
                    <th scope="col">Level</th>
                    <th scope="col" className="num">
                      {metricName}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {board.data.leaderboard.map((row) => (
                    <tr key={row.user.id} className={row.isCurrentUser ? 'current-user' : undefined} aria-current={row.isCurrentUser ? 'true' : undefined}>
                      <td data-label="Rank">{row.rank}</td>
                      <td data-label="Trader">
                        <Link href={traderHref(row.user.id)}>{row.user.displayName}</Link>
                        {row.isCurrentUser ? <span className="you"> (you)</span> : null}
                        {row.user.badges.length > 0 ? (
                          <span className="badge-icons" aria-label={`Badges: ${row.user.badges.map((b) => b.name).join(', ')}`}>
                            {' '}
                            {row.user.badges.map((b) => b.icon).join('')}
                          </span>
                        ) : null}
                      </td>
                      <td data-label="Level">{row.user.level}</td>
                      <td className="num" data-label={metricName}>
                        {formatMetric(metric, row.value)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
}
