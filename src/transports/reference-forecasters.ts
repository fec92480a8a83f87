import { randomBytes, randomUUID } from 'node:crypto';
import type { InvokeDeps } from '../registry/invoke';
import { invoke } from '../registry/invoke';
import type { Registry } from '../registry/registry';
import type { CallInfo } from '../registry/context';
import { fromMicro } from '../domain/money/micro';
import { seededRandom, seedOf } from '../domain/benchmark/estimate';
import { exactSplit, REFERENCE_KINDS, type OpenMarket, type ReferenceAccounts } from '../domain/benchmark/reference-accounts';
import type { ReferenceKind } from '../domain/benchmark/benchmark-service';

/** The favourite reference buys the favourite of this many markets a day (a seeded sample), this many dollars each. */
export const FAVOURITE_SAMPLE = 5;
export const FAVOURITE_STAKE = 10;
/** The share of the trade rate limit a reference account uses: it stays under it, as a polite agent does. */
const SHARE_OF_LIMIT = 5 / 6;

const PROFILE: Record<ReferenceKind, { displayName: string; description: string }> = {
  market: {
    displayName: 'Reference: market',
    description: "States each open market's mid once a day. Its alpha must be 0: the check that scoring has not drifted.",
  },
  coin_flip: { displayName: 'Reference: coin flip', description: 'States 0.5 (or an even split) on each open market once a day: the know-nothing baseline.' },
  favourite: {
    displayName: 'Reference: favourite',
    description: `Buys the favourite of ${FAVOURITE_SAMPLE} sampled markets a day, ${FAVOURITE_STAKE} dollars each.`,
  },
};

/**
 * The reference forecasters (issue 33 item 7): three agent accounts of the service's own that act once a UTC day through the
 * registry, as any agent does (register_account, submit_forecast, paper_trade), so their records are scored by the same code
 * as everyone's. The day is claimed in the database, so one process acts per day.
 */
export class ReferenceForecasters {
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    /** The pipeline it calls through (a thunk: the services that own it are still being built when it is). */
    private readonly depsOf: () => AgentDeps,
    private readonly accounts: ReferenceAccounts,
  ) {}

  /** Waits between two calls of one account, so it stays under the configured trade limit. */
  private pause(): Promise<void> {
    const perMinute = Math.max(1, Math.floor(this.depsOf().services.config.RATE_LIMIT_TRADE_PER_MIN * SHARE_OF_LIMIT));
    return new Promise((r) => setTimeout(r, 60_000 / perMinute).unref());
  }

  /** Starts the day's work in the background (after a sync); a run already going is left to finish. */
  kick(now: Date): void {
    if (this.running || this.stopped) return;
    this.running = this.runDay(now)
      .catch((err) => this.depsOf().log.error('reference forecasters failed', { error: String(err) }))
      .finally(() => (this.running = null));
  }

  /** Stops between two calls (the rest of the day is not done: the day stays claimed) and waits for the call in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** The day's forecasts and trades; false when the day was already claimed. Returns what each reference did. */
  async runDay(now: Date): Promise<{ acted: boolean; calls: Record<ReferenceKind, number>; failures: number }> {
    const calls: Record<ReferenceKind, number> = { market: 0, coin_flip: 0, favourite: 0 };
    const day = now.toISOString().slice(0, 10);
    if (!(await this.accounts.claimDay(day))) return { acted: false, calls, failures: 0 };
    const keys = new Map<ReferenceKind, string>();
    for (const kind of REFERENCE_KINDS) keys.set(kind, await this.keyOf(kind));
    const markets = await this.accounts.openMarkets(now, this.depsOf().services.config.REFERENCE_MARKETS_PER_DAY);
    const random = seededRandom(seedOf(`favourite|${day}`));
    const mirrored = markets.filter((m): m is Extract<OpenMarket, { venue: 'mirrored' }> => m.venue === 'mirrored');
    // A Fisher–Yates shuffle seeded by the day: the same sample in every process and on every retry of the day.
    const sample = [...mirrored];
    for (let i = sample.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [sample[i], sample[j]] = [sample[j]!, sample[i]!];
    }
    sample.length = Math.min(sample.length, FAVOURITE_SAMPLE);
    const plans: Array<Array<() => Promise<unknown>>> = [
      markets.map((m) => () => this.call(keys.get('market')!, 'submit_forecast', statedMid(m))),
      markets.map((m) => () => this.call(keys.get('coin_flip')!, 'submit_forecast', coinFlip(m))),
      sample.map((m) => () => this.call(keys.get('favourite')!, 'paper_trade', favourite(m))),
    ];
    let failures = 0;
    // The three accounts act side by side, each at its own pace.
    await Promise.all(
      plans.map(async (steps, i) => {
        for (const step of steps) {
          if (this.stopped) return;
          try {
            await step();
            calls[REFERENCE_KINDS[i]!] += 1;
          } catch (err) {
            failures += 1;
            this.depsOf().log.warn('reference forecaster call refused', { reference: REFERENCE_KINDS[i], error: String(err) });
          }
          await this.pause();
        }
      }),
    );
    return { acted: true, calls, failures };
  }

  /** The account playing `kind` (registered through register_account the first time), with a fresh key. */
  private async keyOf(kind: ReferenceKind): Promise<string> {
    const existing = await this.accounts.find(kind);
    if (existing) return this.accounts.mintKey(existing);
    const registered = (await this.call(undefined, 'register_account', {
      email: `reference-${kind.replace('_', '-')}@reference.invalid`,
      password: randomBytes(24).toString('hex'),
      displayName: PROFILE[kind].displayName,
      isAgent: true,
      agentDescription: PROFILE[kind].description,
    })) as { user: { id: string; apiKey: string } };
    if (!(await this.accounts.flag(registered.user.id, kind))) throw new Error(`another account already plays the ${kind} reference`);
    return registered.user.apiKey;
  }

  private call(key: string | undefined, name: string, input: Record<string, unknown>): Promise<unknown> {
    return callAs(this.depsOf(), key, name, input);
  }
}

/** What an in-process agent calls through: the registry's invoke pipeline and the origin its calls claim. */
export type AgentDeps = InvokeDeps & { registry: Registry; origin: string };

/** One call of a registry method as an in-process agent makes it: with `key` as its bearer, through the whole pipeline. */
export function callAs(deps: AgentDeps, key: string | undefined, name: string, input: Record<string, unknown>): Promise<unknown> {
  const method = deps.registry.get(name);
  if (!method) throw new Error(`no method ${name}`);
  const call: CallInfo = {
    transport: 'internal',
    requestId: randomUUID(),
    ip: '127.0.0.1',
    credentials: key ? { bearer: key } : {},
    address: { origin: deps.origin, own: [deps.origin] },
  };
  return invoke(deps, method, input, call);
}

const p = (micro: bigint) => fromMicro(micro);

/** The market reference's forecast: the mid (or the prices) it read. Replay's market agent states the same (src/replay/reference-agents.ts). */
export function statedMid(m: OpenMarket): Record<string, unknown> {
  if (m.venue === 'mirrored') return { marketId: m.id, probability: p(m.midMicro), rationale: 'The market mid.' };
  return { marketId: m.id, probabilities: exactSplit(m.pricesMicro.map(Number)).map(p), rationale: 'The market prices.' };
}

/** The coin-flip reference's forecast: 0.5, or an even split. */
export function coinFlip(m: OpenMarket): Record<string, unknown> {
  if (m.venue === 'mirrored') return { marketId: m.id, probability: 0.5, rationale: 'A coin flip.' };
  return { marketId: m.id, probabilities: exactSplit(m.pricesMicro.map(() => 1)).map(p), rationale: 'An even split.' };
}

function favourite(m: Extract<OpenMarket, { venue: 'mirrored' }>): Record<string, unknown> {
  const yes = m.midMicro >= 500_000n;
  return { marketId: m.id, marketSlug: m.slug, tokenId: yes ? m.yesToken : m.noToken, outcome: yes ? 'YES' : 'NO', amount: FAVOURITE_STAKE };
}
