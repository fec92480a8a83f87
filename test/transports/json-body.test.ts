import { jsonBody } from '../../src/transports/json-body';

describe('jsonBody', () => {
  afterEach(() => jest.restoreAllMocks());

  test('when a result is frozen, then it is serialised once however often it is served', () => {
    const board = Object.freeze({ period: 'weekly', entries: [{ rank: 1, value: 12.5 }] });
    const stringify = jest.spyOn(JSON, 'stringify');
    const first = jsonBody(board);
    expect(jsonBody(board)).toBe(first);
    expect(jsonBody(board)).toBe(first);
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(JSON.parse(first)).toEqual(board);
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
