import { expectedCalls, pairs, shownFacts } from './doc-examples';

/** The examples test's reading of a script, on a fixture: a checker that misreads would pass examples that lie. */
describe('reading a shell example and its # → lines', () => {
  const script = [
    'BASE=http://localhost:3000',
    '# 1. Register.',
    "KEY=$(curl -s -X POST $BASE/api/auth/register -d '{}' | jq -r .user.apiKey)",
    '# → 201 {"success":true,"user":{"id":"…","balance":1000,…}}',
    'curl -s $BASE/api/search?q=will',
    '# → {"markets":[{"price":0.53…,"outcome":"YES"}],',
    '#    "count":2}',
    '# 3. No comment follows this one.',
    'curl -s $BASE/health | jq .status',
  ].join('\n');

  test('when a script has three curl calls, then each gets the status and JSON of the # → line that follows it, continuation lines joined', () => {
    const calls = expectedCalls(script);
    expect(calls.map((c) => [c.status, c.shown])).toEqual([
      [201, '{"success":true,"user":{"id":"…","balance":1000,…}}'],
      [null, '{"markets":[{"price":0.53…,"outcome":"YES"}],"count":2}'],
      [null, null],
    ]);
  });

  test('when a # → line shows values, then only those written out in full are promised, and every key it names is', () => {
    expect(shownFacts('{"success":true,"user":{"id":"…","balance":1000,…}}')).toEqual({
      keys: ['success', 'user', 'id', 'balance'],
      values: [
        ['success', true],
        ['balance', 1000],
      ],
    });
    // 0.53… is cut short: not a promise of 0.53, nor of 0 or 0.5.
    expect(shownFacts('{"price":0.53…,"outcome":"YES","reserved":0}').values).toEqual([
      ['outcome', 'YES'],
      ['reserved', 0],
    ]);
  });

  test('when a body nests objects in arrays, then every key and value is found wherever it is', () => {
    expect(pairs({ a: [{ b: 1 }, { c: { d: 'x' } }] })).toEqual([
      ['a', [{ b: 1 }, { c: { d: 'x' } }]],
      ['b', 1],
      ['c', { d: 'x' }],
      ['d', 'x'],
    ]);
  });
});
