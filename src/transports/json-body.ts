/** A response body as JSON: text, bytes, or bytes in parts sent one after the other (a frozen result made of frozen parts). */
export type JsonBody = string | Buffer | readonly Buffer[];

/** The JSON bytes of results the domain has frozen, by object: such a result is served again as it is. */
const serialized = new WeakMap<object, Buffer | readonly Buffer[]>();
/** The JSON bytes of frozen values inside results (a board's rows shared by many callers' views of it). */
const partBytes = new WeakMap<object, Buffer>();

/**
 * A result as JSON: text, or for a frozen result (a board the leaderboard reuses for many requests) the
 * same bytes every time. Such a result is serialised and encoded once, however many requests it answers:
 * 100 rows are some 30 kB, and stringifying them on every request was most of the CPU a cached board cost.
 * The bytes are kept too, not only the text: express turns a long string into a new Buffer per response,
 * and 30 kB of fresh off-heap memory per request (some 50 MB/s at 1,600 boards a second) kept V8 in full
 * collections, several a second, stalling requests for tens of milliseconds.
 * A frozen plain object's frozen values are encoded once each and sent as they are, between the few bytes
 * of its own: one caller's view of a shared board (the rows, and their own place) costs the place's bytes,
 * not the rows' again.
 */
export function jsonBody(result: unknown): JsonBody {
  if (result === null || typeof result !== 'object' || !Object.isFrozen(result)) return JSON.stringify(result);
  let bytes = serialized.get(result);
  if (bytes === undefined) {
    bytes = composable(result) ? fromParts(result) : Buffer.from(JSON.stringify(result), 'utf8');
    serialized.set(result, bytes);
  }
  return bytes;
}

/** The body's length in bytes (its Content-Length). */
export function byteLength(body: JsonBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  return (body as readonly Buffer[]).reduce((n, part) => n + part.length, 0);
}

/** A plain object with nothing of its own to say about its JSON (no toJSON): its JSON is its keys' in order. */
function composable(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** What JSON.stringify writes for a plain object, as parts: its own bytes, and each frozen value's kept bytes. */
function fromParts(value: Record<string, unknown>): Buffer | readonly Buffer[] {
  const parts: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    const kept = v !== null && typeof v === 'object' && Object.isFrozen(v);
    const own = kept ? undefined : (JSON.stringify(v) as string | undefined);
    // Undefined and functions are left out, as JSON.stringify leaves them.
    if (!kept && own === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (kept) {
      parts.push(Buffer.from(text, 'utf8'), bytesOf(v));
      text = '';
    } else text += own;
  }
  parts.push(Buffer.from(`${text}}`, 'utf8'));
  return parts.length === 1 ? parts[0]! : parts;
}

function bytesOf(value: object): Buffer {
  let bytes = partBytes.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(value), 'utf8');
    partBytes.set(value, bytes);
  }
  return bytes;
}
