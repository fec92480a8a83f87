/** The JSON bytes of results the domain has frozen, by object: such a result is served again as it is. */
const serialized = new WeakMap<object, Buffer>();

/**
 * A result as JSON: text, or for a frozen result (a board the leaderboard reuses for many requests) the
 * same bytes every time. Such a result is serialised and encoded once, however many requests it answers:
 * 100 rows are some 30 kB, and stringifying them on every request was most of the CPU a cached board cost.
 * The bytes are kept too, not only the text: express turns a long string into a new Buffer per response,
 * and 30 kB of fresh off-heap memory per request (some 50 MB/s at 1,600 boards a second) kept V8 in full
 * collections, several a second, stalling requests for tens of milliseconds.
 */
export function jsonBody(result: unknown): string | Buffer {
  if (result === null || typeof result !== 'object' || !Object.isFrozen(result)) return JSON.stringify(result);
  let bytes = serialized.get(result);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(result), 'utf8');
    serialized.set(result, bytes);
  }
  return bytes;
}
