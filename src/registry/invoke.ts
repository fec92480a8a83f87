import { unknownFieldMessage } from './unknown-fields';
import { AppError, toAppError } from '../errors/app-error';
import { isRevalidatable, type AnyMethod } from './method';
import type { CallInfo, Clock, IdempotencyHandle, MethodContext, Principal } from './context';
import type { MethodServices } from './method-services';
import type { Logger } from '../logger';
import { requestHash } from '../domain/idempotency/idempotency-store';
import { answerVocabulary, checkDeprecatedInput, noteDeprecatedMethod } from './deprecations';
import { withSelectedFields } from './fields';
import { withinPageBudget } from './pages';
import { BROWSER_KEY_PREFIX, type LimitClass } from '../limits/rate-limiter';

export interface InvokeDeps {
  services: MethodServices;
  clock: Clock;
  log: Logger;
  /** Check every result against the method's output schema (on in tests, off in production). */
  validateOutput: boolean;
  /** The replay run this call runs in (set by runScoped). */
  run?: { id: string };
}

/**
 * A call made with a replay run's key runs on that run's services and clock, so it can read and trade only the run's
 * venue; every other call runs on `deps` as given. A run that has ended only reads: anything else is REPLAY_ENDED.
 */
export async function runScoped(deps: InvokeDeps, call: CallInfo, readOnly: boolean): Promise<{ deps: InvokeDeps; call: CallInfo }> {
  const scope = await deps.services.runs?.scopeOf(call);
  if (!scope) return { deps, call };
  if (scope.ended && !readOnly) {
    throw new AppError('REPLAY_ENDED', `Replay run ${scope.runId} has ended: its books and record are frozen.`, {
      hint: 'Read its record with get_replay, or start a new run with start_replay (with a live key).',
    });
  }
  return { deps: { ...deps, services: scope.services, clock: scope.clock, run: { id: scope.runId } }, call: scope.call };
}

/**
 * Who a call's limits and stream slots count against. A run's account id is fixed by its scenario (its record must
 * reproduce), so two runs of one scenario share it: a run's calls count under the run, never against another run's.
 */
export function callerKey(deps: Pick<InvokeDeps, 'run'>, principal: Principal | null, call: CallInfo): string {
  return principal ? `${deps.run ? `run:${deps.run.id}:` : ''}user:${principal.userId}` : `ip:${call.ip}`;
}

/**
 * The key a call's rate limits count under: the caller's, except a person's browser session (the session cookie, never
 * an API key or token, never an agent's session, never in a replay run), whose `api` calls count on a browser budget
 * of their own (issue 53 item 2: address-bar loads, reloads and new tabs). Trades, sells and comments stay the account's.
 */
export function limitKey(cls: LimitClass, deps: Pick<InvokeDeps, 'run'>, principal: Principal | null, call: CallInfo): string {
  const caller = callerKey(deps, principal, call);
  const browser = cls === 'api' && principal?.via === 'session' && !principal.isAgent && !deps.run;
  return browser ? `${BROWSER_KEY_PREFIX}${caller}` : caller;
}

/**
 * The one pipeline every transport calls: authenticate → rate limit → validate input → handler →
 * (output check). Behaviour therefore cannot differ by transport.
 *
 * One exception to "rate limit first": a conditional read of a revalidatable method (a public GET whose caller says
 * which answer it holds) runs first, and when the answer is the one held it is not counted against the method's limit
 * (the caller is told "not modified"), only against the larger revalidation budget. Any other outcome (new data, an
 * error) is counted as every call is, so the limits on calls that return data are unchanged.
 */
export async function invoke(given: InvokeDeps, method: AnyMethod, rawInput: unknown, asCalled: CallInfo): Promise<unknown> {
  const { deps, call } = await runScoped(given, asCalled, method.annotations.readOnlyHint === true);
  const principal = await authenticate(deps.services, method, call);
  const caller = callerKey(deps, principal, call);
  // A public read carries no principal; a person's page still sends its session, whose browser budget it counts on.
  const budgetOf =
    principal ?? (method.auth === 'public' && method.limit === 'api' && !deps.run ? await deps.services.authenticator.sessionForBudget(call) : null);
  const counted = limitKey(method.limit, deps, budgetOf, call);
  const count = () => (countsAgainstLimits(call) ? deps.services.limiter.consume(method.limit, counted, call.ip) : Promise.resolve());
  const holds = isRevalidatable(method) ? call.holds : undefined;
  if (!holds) {
    await count();
    return run(deps, method, rawInput, call, principal);
  }
  await deps.services.limiter.consumeRevalidation(caller, call.ip);
  let result: unknown;
  try {
    result = await run(deps, method, rawInput, call, principal);
  } catch (err) {
    await count();
    throw err;
  }
  if (holds(result)) {
    call.effects = { ...call.effects, notModified: true };
    return result;
  }
  await count();
  return result;
}

/**
 * Whether a call counts against the rate limits: not the service's own (its reference forecasters and replay reference
 * agents call through this pipeline as 127.0.0.1), which would otherwise use up a newcomer's registrations from that
 * address (issue 51 item 6). They pace themselves under the limits instead (src/transports/reference-forecasters.ts).
 */
export function countsAgainstLimits(call: CallInfo): boolean {
  return call.transport !== 'internal';
}

/** Validate input → handler (with its Idempotency-Key) → output check: the pipeline after authentication and limits. */
async function run(deps: InvokeDeps, method: AnyMethod, rawInput: unknown, call: CallInfo, principal: Principal | null): Promise<unknown> {
  const parsed = method.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const known = Object.keys(method.input.shape);
    const issues = parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys' ? { ...i, message: unknownFieldMessage(i.keys, i.path.length ? [] : known) } : i,
    );
    throw new AppError('VALIDATION_ERROR', `Invalid input for ${method.name}: ${summarizeIssues(issues)}`, {
      details: issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message, code: i.code })),
      hint: 'See the method input schema in /openapi.json.',
    });
  }
  checkDeprecatedInput(method, rawInput, call);
  noteDeprecatedMethod(method, call);
  const ctx = new CallContext(principal, deps, call, method.name);
  // A list answer that would pass the page budget is asked again for fewer items (src/registry/pages.ts).
  return withinPageBudget(method, parsed.data as Record<string, unknown>, async (input) => {
    const result = method.idempotent && principal ? await withIdempotency(deps, method, ctx, principal.userId, input) : await method.handler(ctx, input);
    if (deps.validateOutput) {
      const check = method.output.safeParse(result);
      if (!check.success) {
        deps.log.error('output schema violation', { method: method.name, issues: check.error.issues });
        throw new AppError('INTERNAL', `Output of ${method.name} does not match its schema`);
      }
    }
    // The whole answer is checked above; the selection only leaves fields out (a method's schema says they may go).
    return answerVocabulary(method, withSelectedFields(method, result, (input as { fields?: unknown }).fields), call);
  });
}

/**
 * What a method's handler is given. A class, not an object literal with a `log` getter: that literal, made for every
 * call, was half of what a cached board request promoted out of V8's young generation (measured: bench/README.md).
 */
class CallContext implements MethodContext {
  readonly services: MethodServices;
  readonly clock: Clock;
  readonly requestId: string;
  idempotency?: IdempotencyHandle;
  readonly run?: { id: string };
  private logger: Logger | undefined;

  constructor(
    readonly principal: Principal | null,
    private readonly deps: InvokeDeps,
    readonly call: CallInfo,
    private readonly methodName: string,
  ) {
    this.services = deps.services;
    this.clock = deps.clock;
    this.requestId = call.requestId;
    if (deps.run) this.run = deps.run;
  }

  /** Made on first use: most calls log nothing, and a child logger is an allocation every call paid. */
  get log(): Logger {
    return (this.logger ??= this.deps.log.child({ requestId: this.requestId, method: this.methodName }));
  }
}

/**
 * Same key + same body → the stored response, no second execution; same key + other body, or still in
 * flight → 409 CONFLICT. The handler's domain stores the response in its own transaction (atomic with
 * the trade); a failure releases the key.
 */
async function withIdempotency(deps: InvokeDeps, method: AnyMethod, ctx: MethodContext, userId: string, input: Record<string, unknown>): Promise<unknown> {
  const { idempotencyKey: fromInput, ...rest } = input as { idempotencyKey?: string };
  const key = ctx.call.idempotencyKey ?? fromInput;
  if (!key) return method.handler(ctx, input);
  const claim = await deps.services.idempotency.claim(userId, key, method.name, requestHash(method.name, rest), deps.clock.now());
  if (claim.kind === 'replay') {
    ctx.call.effects = { ...ctx.call.effects, replayed: true };
    return claim.response;
  }
  let stored = false;
  ctx.idempotency = {
    complete: async (tx, response) => {
      await claim.complete(tx, response);
      stored = true;
    },
  };
  try {
    const result = await method.handler(ctx, input);
    if (!stored) await deps.services.db.transaction((tx) => claim.complete(tx, result));
    return result;
  } catch (err) {
    // If the database is gone the key stays claimed; the next retry sees its request has ended and takes it.
    await claim.release().catch(() => {});
    throw err;
  } finally {
    claim.end();
  }
}

async function authenticate(services: MethodServices, method: AnyMethod, call: CallInfo): Promise<Principal | null> {
  // Misplaced credentials, audiences (per transport), scopes, CSRF and session renewal: src/auth/authenticator.ts.
  return services.authenticator.authenticate(method.auth, call);
}

function summarizeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

export { toAppError };
