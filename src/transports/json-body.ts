/** The JSON bytes of results the domain has frozen, by object: such a result is served again as it is. */
const serialized = new WeakMap<object, Buffer>();
/** The JSON text of frozen values inside results (a board's rows shared by many callers' views of it). */
const texts = new WeakMap<object, string>();

/**
 * A result as JSON: text, or for a frozen result (a board the leaderboard reuses for many requests) the
 * same bytes every time. Such a result is serialised and encoded once, however many requests it answers:
 * 100 rows are some 30 kB, and stringifying them on every request was most of the CPU a cached board cost.
 * The bytes are kept too, not only the text: express turns a long string into a new Buffer per response,
 * and 30 kB of fresh off-heap memory per request (some 50 MB/s at 1,600 boards a second) kept V8 in full
 * collections, several a second, stalling requests for tens of milliseconds.
 * A frozen result made of frozen parts (one caller's view: the shared rows and their own place) is written from
 * its parts' kept text, so the rows are not stringified again for each caller.
 */
export function jsonBody(result: unknown): string | Buffer {
  if (result === null || typeof result !== 'object' || !Object.isFrozen(result)) return JSON.stringify(result);
  let bytes = serialized.get(result);
  if (bytes === undefined) {
    bytes = Buffer.from(composable(result) ? fromParts(result) : JSON.stringify(result), 'utf8');
    serialized.set(result, bytes);
  }
  return bytes;
}

/** A plain object with nothing of its own to say about its JSON (no toJSON): its JSON is its keys' in order. */
function composable(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** What JSON.stringify writes for a plain object, its frozen values' text kept. */
function fromParts(value: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const text = textOf(value[key]);
    // Undefined and functions are left out, as JSON.stringify leaves them.
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function textOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return JSON.stringify(value) as string | undefined;
  let text = texts.get(value);
  if (text === undefined) {
    text = composable(value) ? fromParts(value) : JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}
