import { AppError } from '../errors/app-error';
import type { CallInfo, MethodContext } from './context';
import { callerKey, limitKey, runScoped, type InvokeDeps } from './invoke';
import type { AnyStream, StreamSink } from './stream';

/** How many streams each caller holds open, per stream, in this process. */
export class StreamSlots {
  private readonly held = new Map<string, number>();

  /** Takes a slot, or answers false when the caller already holds `max`; the returned release is safe to call twice. */
  take(key: string, max: number): (() => void) | null {
    const n = this.held.get(key) ?? 0;
    if (n >= max) return null;
    this.held.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** Streams open right now (all callers). */
  get open(): number {
    let n = 0;
    for (const v of this.held.values()) n += v;
    return n;
  }
}

/**
 * The pipeline of a stream, as invoke() is a method's: authenticate → rate limit (once per connection) → validate the
 * input → take one of the caller's stream slots → open. Everything that can refuse does so before the first byte, so
 * the transport still answers it as a JSON error; the slot is given back when the sink closes.
 */
export async function openStream(
  given: InvokeDeps,
  stream: AnyStream,
  rawInput: unknown,
  asCalled: CallInfo,
  sink: StreamSink,
  slots: StreamSlots,
): Promise<void> {
  // A replay run's key streams the run's events and prices (runScoped, as invoke does).
  const { deps, call } = await runScoped(given, asCalled, true);
  const principal = await deps.services.authenticator.authenticate(stream.auth, call);
  const caller = callerKey(deps, principal, call);
  // A public stream opened by a person's page counts on their browser budget, as invoke's public reads do.
  const budgetOf = principal ?? (stream.auth === 'public' && !deps.run ? await deps.services.authenticator.sessionForBudget(call) : null);
  await deps.services.limiter.consume(stream.limit, limitKey(stream.limit, deps, budgetOf, call), call.ip);
  const parsed = stream.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    throw new AppError('VALIDATION_ERROR', `Invalid input for ${stream.name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      details: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message, code: i.code })),
      hint: 'See the stream parameters in /openapi.json.',
    });
  }
  const max = stream.perCaller(deps.services.config);
  const release = slots.take(`${stream.name}:${caller}`, max);
  if (!release) {
    throw new AppError('RATE_LIMITED', `${max} ${stream.name} streams are already open for ${principal ? 'this account' : 'this address'}; close one first.`, {
      hint: 'One stream per consumer is enough: every event reaches each open stream. Close a stream (or wait for a dropped one to end) and retry.',
      headers: { 'Retry-After': '5' },
    });
  }
  sink.onClose(release);
  const ctx: MethodContext = {
    principal,
    services: deps.services,
    clock: deps.clock,
    requestId: call.requestId,
    log: deps.log.child({ requestId: call.requestId, stream: stream.name }),
    call,
    ...(deps.run ? { run: deps.run } : {}),
  };
  try {
    await stream.open(ctx, parsed.data, sink);
  } catch (err) {
    release();
    throw err;
  }
}
