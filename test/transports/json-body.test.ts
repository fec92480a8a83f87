import { jsonBody } from '../../src/transports/json-body';

describe('jsonBody', () => {
  afterEach(() => jest.restoreAllMocks());

  test('when a result is frozen, then it is serialised and encoded once, and every request gets the same bytes', () => {
    const board = Object.freeze({ period: 'weekly', entries: [{ rank: 1, value: 12.5, name: 'Zoë 🚀' }] });
    const stringify = jest.spyOn(JSON, 'stringify');
    const first = jsonBody(board);
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(jsonBody(board)).toBe(first);
    expect(jsonBody(board)).toBe(first);
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(JSON.parse((first as Buffer).toString('utf8'))).toEqual(board);
    expect((first as Buffer).length).toBe(Buffer.byteLength(JSON.stringify(board)));
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
