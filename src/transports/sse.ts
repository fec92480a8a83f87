import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import type { Registry } from '../registry/registry';
import type { InvokeDeps } from '../registry/invoke';
import { openStream, StreamSlots } from '../registry/open-stream';
import type { AnyStream, StreamEvent, StreamSink } from '../registry/stream';
import { declaredType, toJsonSchema, type JsonSchema } from '../documents/json-schema';
import { callInfoFrom } from './http-call';
import { methodNotAllowed } from './rest';

export interface SseOptions {
  heartbeatMs: number;
  /** How long a client may leave its buffer full before it is cut off. */
  stallMs: number;
  /** Bytes buffered for one client beyond which it is cut off at once (a stream that ignores send()'s false). */
  maxBufferedBytes: number;
}

/**
 * One client's Server-Sent Events over an HTTP response. Headers go out with the first event (or when the stream has
 * opened), so anything refused before that is still a JSON error. send() respects res.write backpressure; a client
 * that has not drained within `stallMs`, or has more than `maxBufferedBytes` waiting, is disconnected.
 */
export class HttpEventSink implements StreamSink {
  private started = false;
  private ended = false;
  private readonly listeners: Array<() => void> = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private stall: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    private readonly opts: SseOptions,
  ) {
    res.on('close', () => this.finish());
    res.on('drain', () => {
      clearTimeout(this.stall);
      this.stall = undefined;
      this.wakeWaiters();
    });
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Sends the headers and starts the heartbeat (idempotent). */
  begin(): void {
    if (this.started || this.ended) return;
    this.started = true;
    const res = this.res;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no'); // proxies (nginx) must not hold events back
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    this.write('retry: 2000\n\n');
    this.heartbeat = setInterval(() => {
      if (!this.res.writableNeedDrain) this.write(': ping\n\n');
    }, this.opts.heartbeatMs);
  }

  send(ev: StreamEvent): boolean {
    if (this.ended) return false;
    this.begin();
    const text = `${ev.id !== undefined ? `id: ${ev.id}\n` : ''}event: ${ev.event}\ndata: ${JSON.stringify(ev.data)}\n\n`;
    return this.write(text);
  }

  drained(): Promise<void> {
    if (this.ended || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.listeners.push(listener);
  }

  end(): void {
    if (this.ended) return;
    if (this.started) this.res.end();
    else this.res.destroy();
    this.finish();
  }

  private write(text: string): boolean {
    const ok = this.res.write(text);
    if (this.res.writableLength > this.opts.maxBufferedBytes) {
      this.cutOff();
      return false;
    }
    if (!ok && !this.stall) this.stall = setTimeout(() => this.cutOff(), this.opts.stallMs);
    return ok;
  }

  /** A client too far behind: dropped (an event stream's client resumes with Last-Event-ID). */
  private cutOff(): void {
    this.res.destroy();
    this.finish();
  }

  private wakeWaiters(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.stall);
    this.wakeWaiters();
    for (const l of this.listeners.splice(0)) {
      try {
        l();
      } catch {
        // a listener's failure must not keep the others from running
      }
    }
  }
}

/** Query strings carry text: lists come comma-separated (or repeated), numbers and booleans as text. */
function queryInput(stream: AnyStream, req: Request): Record<string, unknown> {
  const props = (toJsonSchema(stream.input, 'input').properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(req.query as Record<string, unknown>)) {
    const type = declaredType(props[key]);
    if (typeof v === 'string' && type === 'array') out[key] = v.split(',');
    else if (typeof v === 'string' && (type === 'number' || type === 'integer') && v.trim() !== '' && !Number.isNaN(Number(v))) out[key] = Number(v);
    else out[key] = v;
  }
  if (stream.resumable) {
    const header = req.get('last-event-id');
    if (header !== undefined && header !== '') out.lastEventId = header.trim();
  }
  return out;
}

/** The registry's streams as GET routes answering text/event-stream (mounted before the REST routes: /api/markets/stream
 * must not be taken for a market slug). */
export function sseRouter(registry: Registry, deps: InvokeDeps): { router: Router; slots: StreamSlots } {
  const router = express.Router();
  const slots = new StreamSlots();
  const config = deps.services.config;
  const opts: SseOptions = { heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS, stallMs: config.EVENT_STREAM_STALL_MS, maxBufferedBytes: 1 << 20 };
  for (const stream of registry.streams) {
    router.get(stream.path, async (req: Request, res: Response, next: NextFunction) => {
      const sink = new HttpEventSink(res, opts);
      try {
        const call = callInfoFrom(req, res, 'rest', config);
        await openStream(deps, stream, queryInput(stream, req), call, sink, slots);
        sink.begin();
      } catch (err) {
        if (res.headersSent) sink.end();
        else next(err);
      }
    });
    router.all(stream.path, methodNotAllowed(['GET']));
  }
  return { router, slots };
}
