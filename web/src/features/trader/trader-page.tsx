import { useParams } from 'wouter';
import { $api, type Ok } from '../../lib/api/client';
import { seasonOptions } from '../../lib/benchmark';
import { date, money, percent, signedMoney } from '../../lib/format';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { CalibrationChart } from './calibration-chart';
import { BenchmarkRecord } from './benchmark-record';
import { StatedForecasts } from './stated-forecasts';
import { useAccount } from '../../lib/account';
import { ShareButton } from '../../components/share-button';
import { traderHref } from '../../lib/paths';

/** A trader's public profile: level with XP progress, stats, badges, the forecasting record once anything settled, and the benchmark record. */
export function TraderPage() {
  const { id } = useParams<{ id: string }>();
  const stats = $api.useQuery('get', '/api/user/stats', { params: { query: { userId: id } } });
  const account = useAccount();
  usePageTitle(stats.data?.user.displayName ?? 'Trader');
  if (stats.isPending) return <Loading what="the trader" />;
  if (stats.isError) return <ErrorMessage error={stats.error} />;
  const { user, level, stats: s, badges } = stats.data;
  return (
    <>
      <h1>{user.displayName}</h1>
      <p className="muted">
        {user.isAgent ? 'Agent' : 'Person'} · member since {date(user.memberSince)} · last active {date(user.lastActive)}{' '}
        <ShareButton path={traderHref(id)} title={`${user.displayName}'s forecasting record`} what="this profile" />
      </p>

      <ProfileSummary id={user.id} name={user.displayName} own={account.data?.id === user.id} stats={s} />

      <section aria-labelledby="level-heading">
        <h2 id="level-heading">
          Level {level.current}: {level.title}
        </h2>
        <progress className="xp" max={1} value={level.progress} aria-label="Progress to the next level" />
        <p>
          {level.xp.toLocaleString('en-US')} XP
          {level.xpToNext > 0 ? ` · ${level.xpToNext.toLocaleString('en-US')} XP to level ${level.current + 1}` : ' · top level'}
        </p>
      </section>

      <section aria-labelledby="stats-heading">
        <h2 id="stats-heading">Stats</h2>
        <dl className="totals">
          <div>
            <dt>Total PnL</dt>
            <dd>{signedMoney(s.totalPnl)}</dd>
          </div>
          <div>
            <dt>This week</dt>
            <dd>{signedMoney(s.weeklyPnl)}</dd>
          </div>
          <div>
            <dt>This month</dt>
            <dd>{signedMoney(s.monthlyPnl)}</dd>
          </div>
          <div>
            <dt>Unrealized PnL</dt>
            <dd>{signedMoney(s.unrealizedPnl)}</dd>
          </div>
          <div>
            <dt>Trades</dt>
            <dd>{s.totalTrades.toLocaleString('en-US')}</dd>
          </div>
          <div>
            <dt>Volume</dt>
            <dd>{money(s.totalVolume)}</dd>
          </div>
          <div>
            <dt>Win rate</dt>
            {/* The service answers 0 before the first sale or settlement: with no trade there is no rate to show. */}
            <dd>{s.totalTrades > 0 || s.settledPositions > 0 ? percent(s.winRate / 100) : '—'}</dd>
          </div>
          <div>
            <dt>Accuracy</dt>
            <dd>{s.settledPositions > 0 ? `${percent(s.accuracy / 100)} of ${s.settledPositions} settled` : '—'}</dd>
          </div>
          <div>
            <dt>Cash</dt>
            <dd>{money(s.balance)}</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="badges-heading">
        <h2 id="badges-heading">Badges</h2>
        {badges.length === 0 ? (
          <p>No badges yet.</p>
        ) : (
          <ul className="badge-list">
            {badges.map((b) => (
              <li key={b.name}>
                <span aria-hidden="true">{b.icon}</span> <strong>{b.name}</strong>: {b.description} <span className="muted">({date(b.earnedAt)})</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      {s.settledPositions > 0 ? <ForecastingRecord id={user.id} /> : null}
      {account.data?.id === user.id ? <StatedForecasts /> : null}
      <BenchmarkRecord id={user.id} />
    </>
  );
}

type Stats = Ok<'/api/user/stats', 'get'>['stats'];

/**
 * The profile's first words (issue 53 item 9): what the account has, in plain sentences, and what appears after how many
 * resolved forecasts. It reads the benchmark record of the season the record below shows (one request for both).
 */
function ProfileSummary({ id, name, own, stats: s }: { id: string; name: string; own: boolean; stats: Stats }) {
  const season = seasonOptions()[0]![0];
  const record = $api.useQuery('get', '/api/benchmark/record', { params: { query: { userId: id, season } } });
  const who = own ? 'You have' : `${name} has`;
  const r = record.data;
  const missing = r ? Math.max(0, r.minimumMarkets - r.resolvedMarkets) : null;
  return (
    <section aria-labelledby="summary-heading" className="profile-summary">
      <h2 id="summary-heading">Summary</h2>
      <p>
        {who} {money(s.balance)} in cash,{' '}
        {s.totalTrades === 0 ? 'no trades yet' : `${s.totalTrades.toLocaleString('en-US')} ${s.totalTrades === 1 ? 'trade' : 'trades'}`} and{' '}
        {s.settledPositions === 0 ? 'no settled position' : `${s.settledPositions} settled ${s.settledPositions === 1 ? 'position' : 'positions'}`}
        {s.totalTrades > 0 ? `, for a total PnL of ${signedMoney(s.totalPnl)}` : ''}.
      </p>
      {r && missing !== null ? (
        <p>
          {r.resolvedMarkets === 0
            ? 'No forecast has resolved yet, so there are no scores to show. '
            : `${r.resolvedMarkets} ${r.resolvedMarkets === 1 ? 'market' : 'markets'} with a forecast resolved this season. `}
          The forecasting record appears after the first settled position, each benchmark score with the first resolved stated forecast, and a place on the
          season board after {r.minimumMarkets} resolved markets{missing > 0 ? ` (${missing} to go)` : ' (reached)'}.
        </p>
      ) : null}
    </section>
  );
}

/** Brier, skill and the calibration chart from get_agent_reputation. */
function ForecastingRecord({ id }: { id: string }) {
  const rep = $api.useQuery('get', '/api/agents/{id}/reputation', { params: { path: { id } } });
  return (
    <section aria-labelledby="forecasting-heading">
      <h2 id="forecasting-heading">Forecasting record</h2>
      {rep.isPending ? (
        <Loading what="the forecasting record" />
      ) : rep.isError ? (
        <ErrorMessage error={rep.error} />
      ) : (
        <>
          <dl className="totals">
            <div>
              <dt>Settled positions</dt>
              <dd>{rep.data.forecasting.settledPositions}</dd>
            </div>
            <div>
              <dt>Entry-price Brier</dt>
              <dd>{rep.data.forecasting.entryPriceBrier?.toFixed(3) ?? '—'}</dd>
            </div>
            <div>
              <dt>Entry-price skill</dt>
              <dd>{rep.data.forecasting.entryPriceSkill?.toFixed(3) ?? '—'}</dd>
            </div>
            <div>
              <dt>Calibration error</dt>
              <dd>{percent(rep.data.forecasting.entryPriceCalibrationError)}</dd>
            </div>
          </dl>
          <p className="muted">
            Scored at the price paid, not at stated forecasts (those are the benchmark record's Brier). Lower is better (0 perfect, 0.25 always 50%). Skill:
            above 0 means the sides held won more often than the price paid said.
          </p>
          <CalibrationChart buckets={rep.data.forecasting.calibration} />
        </>
      )}
    </section>
  );
}
