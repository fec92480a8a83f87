import type { Micro } from '../money/micro';

/**
 * The logarithmic market scoring rule (Hanson) over n outcomes, in integer micro-units.
 *
 * State: the liquidity parameter b and q_i per outcome (an opening offset plus the shares the pool has
 * sold of outcome i), all micro-units. Cost C(q) = b·ln Σ exp(q_i / b); price_i = exp(q_i / b) / Σ exp(q_j / b).
 * exp and ln have no exact integer form, so C is evaluated in doubles and every amount that crosses the
 * pool is rounded to whole micro-dollars in the pool's favour: a buyer pays ⌈ΔC⌉, a seller receives ⌊ΔC⌋.
 * A buy and the sell that undoes it evaluate the same two costs, so selling never returns more than buying
 * cost. The worst-case loss of the rule is b·ln(1 / p_min) of the opening prices (b·ln n when uniform); b is
 * chosen one micro-unit under subsidy / ln(1 / p_min), so the subsidy always covers it.
 */
export interface Pool {
  /** Liquidity parameter b, micro-units. */
  b: Micro;
  /** q_i = offset_i + shares sold of outcome i, micro-units. */
  q: Micro[];
}

const ln = Math.log;

/** ΔC of adding `delta` shares of outcome i (negative delta removes shares), micro-dollars, as a double. */
function costDelta(pool: Pool, i: number, delta: Micro): number {
  // Each state's log-sum-exp about its own maximum, so neither sum underflows however far apart they are.
  const b = Number(pool.b);
  const before = pool.q.map(Number);
  const after = before.slice();
  after[i] = before[i]! + Number(delta);
  const lse = (qs: number[]) => {
    const m = Math.max(...qs);
    let s = 0;
    for (const q of qs) s += Math.exp((q - m) / b);
    return { m, l: ln(s) };
  };
  const x0 = lse(before);
  const x1 = lse(after);
  return x1.m - x0.m + b * (x1.l - x0.l);
}

/** Exact cost in micro-dollars of buying `shares` of outcome i: ⌈ΔC⌉ (the buyer pays up). */
export function buyCost(pool: Pool, i: number, shares: Micro): Micro {
  if (shares <= 0n) return 0n;
  return BigInt(Math.ceil(costDelta(pool, i, shares)));
}

/** Exact proceeds in micro-dollars of selling `shares` of outcome i back to the pool: ⌊−ΔC⌋ (the seller receives down). */
export function sellProceeds(pool: Pool, i: number, shares: Micro): Micro {
  if (shares <= 0n) return 0n;
  const v = Math.floor(-costDelta(pool, i, -shares));
  return v > 0 ? BigInt(v) : 0n;
}

/** The most shares of outcome i that `amount` micro-dollars buys (their cost ⌈ΔC⌉ ≤ amount). */
export function sharesForAmount(pool: Pool, i: number, amount: Micro): Micro {
  if (amount <= 0n) return 0n;
  const { b, qs, m, e, s } = weights(pool);
  const a = Number(amount) / b;
  // Solve C(q + x·e_i) − C(q) = amount: x = b·ln((e^{a}·S − S + E_i) / E_i), written in logs so that neither
  // e^{a} overflows nor a near-zero E_i underflows.
  const x = b * (a + ln(s) - (qs[i]! - m) / b + Math.log1p(-(1 - e[i]! / s) * Math.exp(-a)));
  const estimate = Number.isFinite(x) ? BigInt(Math.max(0, Math.floor(x))) : 0n;
  // The double solution is within a few micro-shares; settle it exactly against the integer cost
  // (ΔC rises with the shares): widen a bracket around the estimate, then bisect.
  const fits = (n: Micro) => buyCost(pool, i, n) <= amount;
  let lo = estimate;
  for (let step = 1n; lo > 0n && !fits(lo); step *= 2n) lo = lo > step ? lo - step : 0n;
  let hi = lo + 1n;
  for (let step = 1n; fits(hi); step *= 2n) hi += step;
  // Invariant: fits(lo) (or lo = 0), !fits(hi).
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Prices as doubles, summing to 1 up to rounding. */
export function prices(pool: Pool): number[] {
  const { e, s } = weights(pool);
  return e.map((x) => x / s);
}

/** The pool as doubles and its outcomes' weights e_i = exp((q_i − m) / b), shifted by the largest q (m) so none overflows, and their sum S. */
function weights(pool: Pool): { b: number; qs: number[]; m: number; e: number[]; s: number } {
  const b = Number(pool.b);
  const qs = pool.q.map(Number);
  const m = Math.max(...qs);
  const e = qs.map((q) => Math.exp((q - m) / b));
  return { b, qs, m, e, s: e.reduce((a, x) => a + x, 0) };
}

/** Prices in micro-units summing to exactly 1,000,000 (largest remainder), each at least 0. */
export function pricesMicro(pool: Pool): Micro[] {
  const p = prices(pool).map((x) => x * 1e6);
  const floors = p.map((x) => Math.floor(x));
  let left = 1_000_000 - floors.reduce((a, x) => a + x, 0);
  const order = p.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floors[i]! += 1;
    left -= 1;
  }
  return floors.map((x) => BigInt(x));
}

/**
 * The liquidity parameter for a subsidy: the largest b (micro-units, minus one for the doubles' rounding)
 * whose worst-case loss b·ln(1 / p_min) fits the subsidy, and the opening offsets q_i = b·ln p_i (all 0 when uniform).
 */
export function openPool(subsidy: Micro, n: number, opening?: number[]): Pool {
  if (n < 2) throw new RangeError('an LMSR needs at least two outcomes');
  const probs = opening ?? Array.from({ length: n }, () => 1 / n);
  if (probs.length !== n) throw new RangeError('one opening probability per outcome');
  const pMin = Math.min(...probs);
  const b = BigInt(Math.floor(Number(subsidy) / ln(1 / pMin))) - 1n;
  if (b <= 0n) throw new RangeError('subsidy too small');
  const q = opening ? probs.map((p) => BigInt(Math.round(Number(b) * ln(p)))) : probs.map(() => 0n);
  return { b, q };
}
