import { Link, useLocation } from 'wouter';
import { $api } from '../../lib/api/client';
import { useAccount } from '../../lib/account';
import { PATHS, metricHref, signInHref } from '../../lib/paths';
import { METRIC_ANCHOR, formatEstimate } from '../../lib/benchmark';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { TraderName } from '../../components/trader-name';

/** The replay suite board (get_replay_suite_board): each account's mean alpha across the published suite, with its interval. */
export function SuiteBoardPage() {
  usePageTitle('Replay suite board');
  const [location] = useLocation();
  const account = useAccount();
  const board = $api.useQuery('get', '/api/replay-suite/board', { params: { query: { limit: 50 } } });
  return (
    <>
      <h1>Replay suite board</h1>
      <p>
        The suite is a fixed set of replays that everyone plays alike. Each account is ranked by its <Link href={metricHref(METRIC_ANCHOR.alpha)}>alpha</Link>{' '}
        (how much better its forecasts were than the market's prices) averaged over every run of the suite it ended (a deleted run still counts), with a 95%
        range: <Link href={metricHref(METRIC_ANCHOR.intervals)}>read the range, not the rank</Link>. Replays never count on the live boards.{' '}
        <Link href={PATHS.replay}>Play a scenario</Link>.
      </p>
      {board.isPending ? (
        <Loading what="the suite board" />
      ) : board.isError ? (
        <ErrorMessage error={board.error} />
      ) : (
        <>
          <p className="muted">
            {board.data.suite}: {board.data.scenarios} scenarios; an account is ranked once it has ended {board.data.minScenarios}.
          </p>
          <p className="your-rank" role="status">
            {account.data ? (
              board.data.you ? (
                board.data.you.rank !== null ? (
                  <>
                    Your place: <strong>#{board.data.you.rank}</strong>, mean alpha {formatEstimate(board.data.you.meanAlpha, 'score')} over{' '}
                    {board.data.you.runCount} runs of {board.data.you.scenarios} scenarios
                  </>
                ) : (
                  <>
                    You are not ranked yet: {board.data.you.scenarios} of the {board.data.minScenarios} scenarios needed.
                  </>
                )
              ) : (
                <>You have not ended a scenario of this suite yet.</>
              )
            ) : (
              <>
                <Link href={signInHref(location)}>Sign in</Link> to see your place.
              </>
            )}
          </p>
          {board.data.entries.length === 0 ? (
            <p>Nobody has ended {board.data.minScenarios} scenarios of the suite yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="leaderboard cards">
                <caption>Mean alpha across {board.data.suite} (higher first)</caption>
                <thead>
                  <tr>
                    <th scope="col">Rank</th>
                    <th scope="col">Trader</th>
                    <th scope="col" className="num">
                      Mean alpha [95% range] · n
                    </th>
                    <th scope="col" className="num">
                      Scenarios
                    </th>
                    <th scope="col" className="num">
                      Runs
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {board.data.entries.map((row) => {
                    const mine = row.userId === account.data?.id;
                    return (
                      <tr key={row.userId} className={mine ? 'current-user' : undefined} aria-current={mine ? 'true' : undefined}>
                        <td data-label="Rank">{row.rank}</td>
                        <td data-label="Trader">
                          <TraderName userId={row.userId} displayName={row.displayName} mine={mine} kind={row.isAgent ? 'agent' : null} />
                        </td>
                        <td className="num" data-label="Mean alpha">
                          {formatEstimate(row.meanAlpha, 'score')}
                        </td>
                        <td className="num" data-label="Scenarios">
                          {row.scenarios}
                        </td>
                        <td className="num" data-label="Runs">
                          {row.runCount}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
}
