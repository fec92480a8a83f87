import fc from 'fast-check';
import { byteLength, jsonBody, type JsonBody } from '../../src/transports/json-body';

/** The bytes a body puts on the wire, as text. */
const wire = (body: JsonBody): string => (typeof body === 'string' ? body : Buffer.isBuffer(body) ? body : Buffer.concat(body as Buffer[])).toString('utf8');

describe('jsonBody', () => {
  afterEach(() => jest.restoreAllMocks());

  test('when a result is frozen, then it is serialised and encoded once, and every request gets the same bytes', () => {
    const board = Object.freeze({ period: 'weekly', entries: [{ rank: 1, value: 12.5, name: 'Zoë 🚀' }] });
    const stringify = jest.spyOn(JSON, 'stringify');
    const first = jsonBody(board);
    const calls = stringify.mock.calls.length;
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(jsonBody(board)).toBe(first);
    expect(jsonBody(board)).toBe(first);
    expect(stringify).toHaveBeenCalledTimes(calls);
    expect(JSON.parse((first as Buffer).toString('utf8'))).toEqual(board);
    expect((first as Buffer).toString('utf8')).toBe(JSON.stringify(board));
  });

  test("when frozen results share a frozen part (callers' views of one board), then the part is stringified once for all of them", () => {
    const entries = Object.freeze(Array.from({ length: 100 }, (_, i) => Object.freeze({ rank: i + 1, name: `Trader ${i}`, figure: { value: i / 7 } })));
    const board = Object.freeze({ season: 'all', entries, you: null });
    const views = [1, 2, 3].map((rank) => Object.freeze({ ...board, you: { rank, figure: { value: 0.1, low: null, high: undefined } } }));
    const stringify = jest.spyOn(JSON, 'stringify');
    const bodies = views.map((view) => wire(jsonBody(view)));
    // The rows were written once for the three views…
    expect(stringify.mock.calls.filter(([value]) => value === entries)).toHaveLength(1);
    expect(stringify.mock.calls.filter(([value]) => views.includes(value as never))).toHaveLength(0);
    // Sent in parts: the rows' bytes are the same Buffer in every view's body (not copied), and the length adds up.
    const rows = views.map((view) => (jsonBody(view) as Buffer[]).find((part) => part.length > 1000));
    expect(rows[1]).toBe(rows[0]);
    expect(rows[2]).toBe(rows[0]);
    expect(byteLength(jsonBody(views[0]))).toBe(Buffer.byteLength(JSON.stringify(views[0])));
    // …and each body is exactly what JSON.stringify writes.
    views.forEach((view, i) => expect(bodies[i]).toBe(JSON.stringify(view)));
  });

  test('a frozen value written from its parts is byte for byte what JSON.stringify writes, whatever it holds', () => {
    const deepFreeze = (v: unknown): unknown => {
      if (v !== null && typeof v === 'object') {
        Object.values(v).forEach(deepFreeze);
        Object.freeze(v);
      }
      return v;
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.object(), fc.boolean(), (json, obj, freezeInside) => {
        const value = { json, obj, date: new Date(0), missing: undefined, fn: () => 1, nested: { json } };
        if (freezeInside) deepFreeze(value);
        Object.freeze(value);
        const body = jsonBody(value);
        expect(wire(body)).toBe(JSON.stringify(value));
        expect(byteLength(body)).toBe(Buffer.byteLength(JSON.stringify(value)));
      }),
    );
  });

  test('when a result is not frozen, then every call serialises it as it is now', () => {
    const result: { n: number } = { n: 1 };
    expect(jsonBody(result)).toBe('{"n":1}');
    result.n = 2;
    expect(jsonBody(result)).toBe('{"n":2}');
    expect(jsonBody(null)).toBe('null');
    expect(jsonBody('text')).toBe('"text"');
  });
});
