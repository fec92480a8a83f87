import type { z } from 'zod';
import type { ErrorCode } from '../errors/app-error';
import type { Area, LimitClass, ObjectSchema } from './method';
import type { MethodContext } from './context';
import type { Config } from '../config';

/** One Server-Sent Event: `id` (when the stream resumes), `event` (its type) and `data` (one JSON value). */
export interface StreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

/**
 * Where a stream's handler writes, whatever carries it (the SSE transport today). `send` answers false when the
 * client's buffer is full: the handler stops sending and awaits `drained()`, which resolves when the client has
 * read what was buffered or the stream has closed. A client that stays full too long is cut off by the transport
 * (a resumable stream's client comes back with Last-Event-ID); `closed` then turns true and `onClose` listeners run.
 */
export interface StreamSink {
  send(event: StreamEvent): boolean;
  drained(): Promise<void>;
  readonly closed: boolean;
  onClose(listener: () => void): void;
  /** Ends the stream from the server's side. */
  end(): void;
}

/**
 * A streaming operation, declared like a method (STYLE.md habit 1) and served by the SSE transport: the OpenAPI
 * document describes it as a GET answering text/event-stream. Its input comes from the query string (and, for a
 * resumable stream, `lastEventId` from the Last-Event-ID header); auth, the rate limit (counted once per connection),
 * the input check and the number of streams open at once per caller are enforced once, in openStream.
 */
export interface StreamSpec<I extends ObjectSchema, E extends ObjectSchema> {
  kind: 'stream';
  /** operationId. */
  name: string;
  area: Area;
  summary: string;
  description: string;
  auth: 'public' | 'key';
  limit: LimitClass;
  /** Query parameters (and `lastEventId` for a resumable stream). */
  input: I;
  /** The JSON of every event's `data`. */
  event: E;
  /** The event names (`event:` lines) the stream sends, besides comments (heartbeats). */
  eventTypes: readonly string[];
  /** Events carry ids, and the stream resumes after the one named by Last-Event-ID (or ?lastEventId=). */
  resumable: boolean;
  /** Streams one caller (an account; an IP address for a public stream) may hold open at once in one process. */
  perCaller: (config: Config) => number;
  path: string;
  errors?: ErrorCode[];
  /** Starts the stream; it lives until the sink closes. Throwing before the first send answers a JSON error instead. */
  open: (ctx: MethodContext, input: z.output<I>, sink: StreamSink) => Promise<void>;
}

export type AnyStream = StreamSpec<ObjectSchema, ObjectSchema>;

export function defineStream<I extends ObjectSchema, E extends ObjectSchema>(spec: StreamSpec<I, E>): StreamSpec<I, E> {
  return spec;
}

export const isStream = (v: unknown): v is AnyStream => typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'stream';
