import fc from 'fast-check';
import { BoardStandings, idPrefixOf, placeAmong, STANDING_BYTES, type Standing } from '../../../src/domain/benchmark/board-places';

type Account = Standing & { id: string; audience: 0 | 1 };

/** The board's own order, written out as the SQL orders it: figure (its direction), more resolved markets, the lower id's text. */
function bruteRank(accounts: Account[], me: Account, lowFirst: boolean): number {
  const sorted = [...accounts].sort(
    (a, b) => (lowFirst ? a.figure - b.figure : b.figure - a.figure) || b.resolvedMarkets - a.resolvedMarkets || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return sorted.indexOf(me) + 1;
}

const at = (figure: number, resolvedMarkets: number, id: string): Standing => ({ figure, resolvedMarkets, idPrefix: idPrefixOf(id) });

describe('placeAmong', () => {
  test('a hand-counted board: figure first (Brier low, alpha high), then more resolved markets, then the lower id', () => {
    const people = BoardStandings.of([at(0.3, 40, 'a0000000'), at(0.1, 40, 'b0000000'), at(0.2, 50, 'c0000000')], true);
    const agents = BoardStandings.of([at(0.2, 40, '10000000'), at(0.05, 31, '20000000'), at(0.2, 40, 'f0000000')], true);
    // Caller 0.2/40/'10000000' (an agent): ahead 0.05, 0.1, 0.2 with 50 resolved; then itself, then 0.2/40/'f…', 0.3.
    expect(placeAmong([people, agents], at(0.2, 40, '10000000'))).toBe(4);
    expect(placeAmong([agents], at(0.2, 40, '10000000'))).toBe(2);
    expect(placeAmong([people, agents], at(0.2, 40, 'f0000000'))).toBe(5);
    const alpha = BoardStandings.of([at(0.02, 30, '1'), at(-0.01, 30, '2'), at(0.05, 30, '3'), at(0, 30, '4')], false);
    expect(placeAmong([alpha], at(0, 30, '4'))).toBe(3);
    expect(placeAmong([alpha], at(0.05, 30, '3'))).toBe(1);
  });

  test('a standing that is not there, or there twice (ids alike in their first 32 bits), is left to the count (null)', () => {
    expect(placeAmong([BoardStandings.of([at(0.1, 30, '1'), at(0.3, 30, '2')], true)], at(0.2, 30, '3'))).toBeNull();
    expect(placeAmong([BoardStandings.of([], true)], at(0.2, 30, '3'))).toBeNull();
    const twins = BoardStandings.of([at(0.2, 30, 'abcdef01-0000'), at(0.2, 30, 'abcdef01-ffff')], true);
    expect(placeAmong([twins], at(0.2, 30, 'abcdef01-0000'))).toBeNull();
  });

  test('equals the board order counted out for every caller; null only when another id shares its first 32 bits and its figures', () => {
    const hex = fc.constantFrom('0', '3', '9', 'a', 'f');
    const account = fc.record({
      audience: fc.constantFrom<0 | 1>(0, 1),
      // Few distinct values: ties on the figure and on resolved markets are common, as on real boards (drawdown 0).
      figure: fc.constantFrom(-0.5, -0.1, -0, 0, 0.05, 0.1, 0.2, 1.5),
      resolvedMarkets: fc.integer({ min: 30, max: 33 }),
      // Ids that often share their first 8 hex digits, and differ after.
      id: fc.tuple(fc.array(hex, { minLength: 8, maxLength: 8 }), fc.array(hex, { minLength: 4, maxLength: 4 })).map(([a, b]) => `${a.join('')}-${b.join('')}`),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(account, { minLength: 1, maxLength: 40, selector: (a) => a.id }),
        fc.boolean(),
        fc.nat(),
        fc.boolean(),
        (raw, lowFirst, pick, both) => {
          const accounts = raw.map((a) => ({ ...a, idPrefix: idPrefixOf(a.id) }));
          const me = accounts[pick % accounts.length]!;
          const onBoard = accounts.filter((a) => both || a.audience === me.audience);
          const audiences = (both ? [0, 1] : [me.audience]).map((aud) =>
            BoardStandings.of(
              onBoard.filter((a) => a.audience === aud),
              lowFirst,
            ),
          );
          const alike = onBoard.some((a) => a !== me && a.figure === me.figure && a.resolvedMarkets === me.resolvedMarkets && a.idPrefix === me.idPrefix);
          const place = placeAmong(audiences, me);
          if (alike) expect(place).toBeNull();
          else expect(place).toBe(bruteRank(onBoard, me, lowFirst));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

/** Standings packed as readStandings' statement packs them: float8send(figure), int4send(resolved markets), the id's first 4 bytes. */
function packed(standings: readonly Standing[]): Buffer {
  const bytes = Buffer.alloc(standings.length * STANDING_BYTES);
  standings.forEach((s, i) => {
    bytes.writeDoubleBE(s.figure, i * STANDING_BYTES);
    bytes.writeUInt32BE(s.resolvedMarkets, i * STANDING_BYTES + 8);
    bytes.writeUInt32BE(s.idPrefix, i * STANDING_BYTES + 12);
  });
  return bytes;
}

describe('BoardStandings.fromBytes', () => {
  const standing = fc.record({
    figure: fc.constantFrom(-0.5, -0.1, -0, 0, 0.05, 0.1, 0.2, 1.5, 0.1 + 0.2),
    resolvedMarkets: fc.integer({ min: 30, max: 33 }),
    idPrefix: fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff),
  });

  test('the bytes in the board order (as the statement sends them) or in any order place every caller as the standings themselves do', () => {
    fc.assert(
      fc.property(fc.array(standing, { maxLength: 40 }), fc.boolean(), fc.boolean(), (raw, lowFirst, inBoardOrder) => {
        const reference = BoardStandings.of(raw, lowFirst);
        const boardOrder = (a: Standing, b: Standing) =>
          (lowFirst ? a.figure - b.figure : b.figure - a.figure) || b.resolvedMarkets - a.resolvedMarkets || a.idPrefix - b.idPrefix;
        const order = inBoardOrder ? [...raw].sort(boardOrder) : raw;
        const read = BoardStandings.fromBytes(packed(order), lowFirst);
        expect(read.size).toBe(raw.length);
        for (const s of raw) expect(read.around(s)).toEqual(reference.around(s));
      }),
      { numRuns: 500 },
    );
  });

  test('a hand-made board: ids above 2^31 order after those below (the bytes are unsigned), and a slice of a larger buffer reads as itself', () => {
    const rows = [at(0.1, 40, '7fffffff'), at(0.1, 40, '80000000'), at(0.2, 41, '00000001')];
    const inside = Buffer.concat([Buffer.alloc(5), packed(rows)]).subarray(5);
    const read = BoardStandings.fromBytes(inside, true);
    expect(placeAmong([read], at(0.1, 40, '80000000'))).toBe(2);
    expect(placeAmong([read], at(0.2, 41, '00000001'))).toBe(3);
    expect(() => BoardStandings.fromBytes(Buffer.alloc(17), true)).toThrow(/not a multiple of 16/);
  });
});
