import { useEffect, type ReactNode } from 'react';
import { Link } from 'wouter';
import { PATHS } from '../../lib/paths';
import { METRIC_ANCHOR } from '../../lib/benchmark';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';

/** One explained metric: a heading the figures link to (its id), what it means, and its formula. */
function Metric({ id, title, formula, children }: { id: string; title: string; formula?: ReactNode; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="metric">
      <h2 id={`${id}-heading`}>{title}</h2>
      {formula ? (
        <p className="formula">
          <span className="visually-hidden">Formula: </span>
          <code>{formula}</code>
        </p>
      ) : null}
      {children}
    </section>
  );
}

/**
 * How the forecasting benchmark is scored: each metric of get_benchmark_record and get_benchmark_leaderboard with
 * its formula, under the id anchor every figure on the profile and the board links to.
 */
export function MetricsPage() {
  usePageTitle('Benchmark metrics');
  // The app draws this page after the address's #anchor was looked for: go to it once it exists.
  useEffect(() => {
    const anchor = decodeURIComponent(window.location.hash.slice(1));
    if (anchor) document.getElementById(anchor)?.scrollIntoView();
  }, []);
  const a = METRIC_ANCHOR;
  return (
    <>
      <h1>Benchmark metrics</h1>
      <p>
        What each figure of the <Link href={PATHS.benchmark}>forecasting benchmark</Link> means and how it is computed. Every figure is shown as value [95%
        interval] · n, where n is what stands behind it (resolved markets, buys or days). p is a forecast probability, o the outcome (1 if it happened, 0 if
        not), N the number of scored markets.
      </p>
      <nav aria-label="Metrics">
        <ul className="metric-index">
          {Object.values(a).map((id) => (
            <li key={id}>
              <a href={`#${id}`}>{id.replace(/-/g, ' ')}</a>
            </li>
          ))}
        </ul>
      </nav>

      <Metric id={a.brier} title="Brier score" formula="Brier = ½ Σᵢ (pᵢ − oᵢ)² over the outcomes i; a binary market: (p − o)²; averaged over N markets">
        <p>
          The squared error of your final forecast on each resolved market, averaged. Lower is better: 0 is perfect, 0.25 is always saying 50%. The
          market&apos;s Brier takes the market&apos;s mid price stamped at the instant of each of your forecasts as its forecast.
        </p>
      </Metric>
      <Metric id={a.logScore} title="Log score" formula="log score = ln p(outcome), p floored at 0.001; averaged over N markets">
        <p>The log of the probability you gave to what happened. Higher (closer to 0) is better; a confident miss costs far more than under Brier.</p>
      </Metric>
      <Metric
        id={a.timeAveraged}
        title="Time-averaged scores"
        formula="score_time-avg = Σⱼ wⱼ · score(pⱼ) / Σⱼ wⱼ, wⱼ = how long forecast j stood before the close"
      >
        <p>Every forecast on a market counts, weighted by how long it stood before the market closed: a late correction earns little.</p>
      </Metric>
      <Metric id={a.alpha} title="Alpha" formula="alpha = Brier(market) − Brier(you), on the same markets and instants">
        <p>Above 0: your forecasts beat the market&apos;s prices when you made them. The market reference forecaster&apos;s alpha is 0 within its interval.</p>
      </Metric>
      <Metric
        id={a.murphy}
        title="Murphy decomposition: reliability, resolution, uncertainty"
        formula="Brier = reliability − resolution + uncertainty; reliability = Σₖ nₖ (f̄ₖ − ōₖ)² / N; resolution = Σₖ nₖ (ōₖ − ō)² / N; uncertainty = ō (1 − ō)"
      >
        <p>
          Over 10 forecast bins k with nₖ pairs, mean forecast f̄ₖ and observed frequency ōₖ (ō overall). Reliability (lower is better) is miscalibration;
          resolution (higher is better) is how much your forecasts separate what happens from what does not; uncertainty is the questions&apos; own difficulty.
        </p>
      </Metric>
      <Metric id={a.calibrationError} title="Calibration error" formula="ECE = Σₖ (nₖ / N) · |f̄ₖ − ōₖ| over 10 bins">
        <p>The average distance between what you said and how often it happened, weighted by how many forecasts each bin holds.</p>
      </Metric>
      <Metric
        id={a.reliabilityDiagram}
        title="Reliability diagram"
        formula="Wilson interval of ōₖ: (ōₖ + z²/2nₖ ± z √(ōₖ(1 − ōₖ)/nₖ + z²/4nₖ²)) / (1 + z²/nₖ), z = 1.96"
      >
        <p>Each bin&apos;s mean forecast against its observed frequency, with the Wilson 95% interval; a calibrated forecaster sits on the diagonal.</p>
      </Metric>
      <Metric id={a.entryPrice} title="Entry-price scores" formula="p = the price paid for the side bought">
        <p>Buys without a stated forecast are scored with the price paid as the forecast, labelled basis &quot;entry price&quot;.</p>
      </Metric>
      <Metric
        id={a.timeWeightedReturn}
        title="Time-weighted return"
        formula="TWR = Πd (1 + r_d) − 1, r_d = (E_d − F_d) / E_(d−1) − 1; E_d = equity at the end of UTC day d, F_d = that day's flows"
      >
        <p>Grants, rewards and pool funding are flows, not returns, so they do not count as profit.</p>
      </Metric>
      <Metric id={a.drawdown} title="Drawdown" formula="drawdown_d = 1 − I_d / max(I_0 … I_d), I = the flow-free equity index; max drawdown = max_d drawdown_d">
        <p>The largest fall from a running peak (maximum drawdown) and the fall from the peak to the last day (current drawdown), as fractions.</p>
      </Metric>
      <Metric id={a.volatility} title="Volatility" formula="σ = √( Σd (r_d − r̄)² / (D − 1) ) over D daily returns">
        <p>The sample standard deviation of daily returns.</p>
      </Metric>
      <Metric id={a.sharpe} title="Sharpe ratio" formula="Sharpe = r̄ / σ (daily, risk-free 0); annualised = Sharpe × √365">
        <p>Mean daily return per unit of its variability.</p>
      </Metric>
      <Metric id={a.sortino} title="Sortino ratio" formula="Sortino = r̄ / √( mean(min(r_d, 0)²) )">
        <p>Like Sharpe, but only falls count as risk.</p>
      </Metric>
      <Metric
        id={a.probabilisticSharpe}
        title="Probabilistic Sharpe ratio"
        formula="PSR = Φ( SR · √(D − 1) / √(1 − γ₃ · SR + (γ₄ − 1)/4 · SR²) ), against a benchmark Sharpe of 0"
      >
        <p>
          Bailey and López de Prado (2012): the probability that the true Sharpe is above 0, given D days, the skewness γ₃ and kurtosis γ₄ of the returns. No
          interval.
        </p>
      </Metric>
      <Metric id={a.kelly} title="Kelly ratio" formula="Kelly stake fraction = (q − c) / (1 − c); Kelly ratio = mean(stake / Kelly stake)">
        <p>
          For buys with a stated forecast q above the price c: how the stake compares with the Kelly stake (1 is full Kelly); the over-Kelly share is the share
          of those buys staked above it.
        </p>
      </Metric>
      <Metric id={a.clv} title="Closing-line value" formula="CLV_h = price of the bought token at fill + h − fill price, h ∈ {+1 h, +24 h, close}">
        <p>
          Whether the price moved your way after you bought, signed by the side bought: as a mean, stake-weighted (Σ cost × CLV / Σ cost), and as the share of
          buys above 0. At the close it is the closing-line value proper.
        </p>
      </Metric>
      <Metric id={a.intervals} title="Intervals: bootstrap clustered by market" formula="95% interval = 2.5th and 97.5th percentiles of 1,000 seeded resamples">
        <p>
          Whole markets are resampled for forecast and timing scores (forecasts on one market are not independent); blocks of ⌈D^⅓⌉ consecutive days for risk.
          The same record gives the same interval anywhere. With fewer than two markets (or days) there is no interval.
        </p>
      </Metric>
      <Metric id={a.seasons} title="Seasons">
        <p>
          Calendar UTC months (YYYY-MM) and all. A forecast, a buy and its market count in the season in which the market resolves, so a season&apos;s forecast
          scores stop changing once its markets have resolved; risk counts the month&apos;s days.
        </p>
      </Metric>
      <Metric
        id={a.minimum}
        title="Who is ranked: 30 resolved markets, and the n for an edge"
        formula="n ≈ ((1.96 + 0.84) · σ / δ)²; σ ≈ 0.13, δ = 0.02 → n ≈ 330"
      >
        <p>
          An account is ranked on a season board only from 30 resolved markets in the season. That is a floor against luck, not a proof of skill: telling a
          Brier edge δ from none (two-sided 5%, power 80%) takes about n resolved markets, where σ is the standard deviation of the per-market difference
          between your Brier and the market&apos;s. With σ ≈ 0.13, an edge of 0.02 needs about 330 markets. Read the interval, not the rank.
        </p>
      </Metric>
    </>
  );
}
