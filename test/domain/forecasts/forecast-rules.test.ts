import fc from 'fast-check';
import {
  canonicalPayload,
  payloadAround,
  recordHash,
  sha256Hex,
  statedProbabilities,
  verifyChain,
  type ForecastFacts,
  type ForecastRecord,
} from '../../../src/domain/forecasts/forecast-rules';
import { AppError } from '../../../src/errors/app-error';

const ACCOUNT = '0f1e2d3c-4b5a-4968-8776-655443322110';

const facts = (over: Partial<ForecastFacts> = {}): ForecastFacts => ({
  id: '5d2c7a8e-0b8f-4a51-9f57-2b8f2f6f9a10',
  userId: ACCOUNT,
  marketId: 'sim-0001',
  venue: 'mirrored',
  source: 'stated',
  probabilitiesMicro: [700000n],
  rationale: 'Rain "likely" — models agree\nsecond line',
  createdAt: new Date('2026-11-25T10:00:00.000Z'),
  ...over,
});

/** A chain of `n` records of one account, hashed as the service hashes them. */
async function chainOf(n: number): Promise<ForecastRecord[]> {
  const out: ForecastRecord[] = [];
  for (let i = 0; i < n; i++) {
    const f = facts({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, probabilitiesMicro: [BigInt(100000 * (i + 1))] });
    const r = { ...f, seq: i + 1, prevHash: out[i - 1]?.hash ?? null, midsMicro: [i % 2 ? null : 620000n], hash: '' };
    r.hash = await recordHash(r);
    out.push(r);
  }
  return out;
}

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return 'none';
};

describe('stated probabilities', () => {
  test('when a mirrored market gets probability, then it is kept exactly in micro-units', () => {
    expect(statedProbabilities('mirrored', 1, { probability: 0.123456 })).toEqual([123456n]);
    expect(statedProbabilities('mirrored', 1, { probability: 0 })).toEqual([0n]);
    expect(statedProbabilities('mirrored', 1, { probability: 1 })).toEqual([1000000n]);
  });

  test.each([
    ['probabilities for a mirrored market', 'mirrored', 1, { probabilities: [0.5, 0.5] }],
    ['probability for a community market', 'community', 2, { probability: 0.5 }],
    ['both', 'mirrored', 1, { probability: 0.5, probabilities: [0.5, 0.5] }],
    ['neither', 'mirrored', 1, {}],
    ['more than 6 decimals', 'mirrored', 1, { probability: 0.1234567 }],
    ['above 1', 'mirrored', 1, { probability: 1.01 }],
    ['a sum short of 1', 'community', 3, { probabilities: [0.3, 0.3, 0.3] }],
    ['a sum over 1 by a millionth', 'community', 2, { probabilities: [0.500001, 0.5] }],
    ['too few outcomes', 'community', 3, { probabilities: [0.5, 0.5] }],
  ] as const)('when given %s, then VALIDATION_ERROR', (_l, venue, n, stated) => {
    expect(code(() => statedProbabilities(venue, n, stated as { probability?: number; probabilities?: number[] }))).toBe('VALIDATION_ERROR');
  });

  test('when community probabilities of at most 6 decimals sum to exactly 1, then they are accepted (0.1 + 0.2 + 0.7 included)', () => {
    expect(statedProbabilities('community', 3, { probabilities: [0.1, 0.2, 0.7] })).toEqual([100000n, 200000n, 700000n]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 9 }), (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const edges = [0, ...sorted, 1_000_000];
        const micro = edges.slice(1).map((e, i) => e - edges[i]!);
        const ps = micro.map((m) => m / 1e6);
        expect(statedProbabilities('community', ps.length, { probabilities: ps })).toEqual(micro.map(BigInt));
      }),
    );
  });
});

describe('canonical payload', () => {
  test('when a record is serialized, then keys are sorted, numbers are integer micro-units and the time is ISO 8601', async () => {
    const text = await canonicalPayload(facts(), { seq: 2, prevHash: 'a'.repeat(64), midsMicro: [620000n] });
    expect(text).toBe(
      `{"createdAt":"2026-11-25T10:00:00.000Z","id":"5d2c7a8e-0b8f-4a51-9f57-2b8f2f6f9a10","marketId":"sim-0001",` +
        `"mids":[620000],"prevHash":"${'a'.repeat(64)}","probabilities":[700000],"rationale":"Rain \\"likely\\" — models agree\\nsecond line",` +
        `"seq":2,"source":"stated","userId":"${ACCOUNT}","v":1,"venue":"mirrored"}`,
    );
  });

  test('when the chain fields are filled into the pieces around them as SQL fills them, then the text is the canonical payload', async () => {
    // payloadAround writes the payload out by hand; the canonicalize package (RFC 8785) is the reference it must equal,
    // over every field: any Unicode text (quotes, backslashes, control characters, astral code points; a lone surrogate
    // is not Unicode, and the rationale's schema refuses one), both venues and every source, any number of
    // probabilities, any instant.
    const text = fc
      .oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: fc.constantFrom('\ud83d\ude00', '"', '\\', '\u2028', '\u007f', '\n'), maxLength: 6 }),
      )
      .filter((s) => !/\p{Cs}/u.test(s));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id: text,
          userId: text,
          marketId: text,
          venue: fc.constantFrom('mirrored' as const, 'community' as const),
          source: fc.constantFrom('stated' as const, 'paper_trade' as const, 'place_order' as const, 'buy_community_shares' as const),
          probabilitiesMicro: fc.array(fc.bigInt({ min: 0n, max: 1_000_000n }), { minLength: 1, maxLength: 8 }),
          rationale: fc.option(text, { nil: null }),
          createdAt: fc.date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('2999-12-31T23:59:59.999Z'), noInvalidDate: true }),
        }),
        fc.array(fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }), { minLength: 1, maxLength: 10 }),
        fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
        fc.integer({ min: 1, max: 1_000_000 }),
        async (f, mids, prevHash, seq) => {
          const [a, b, c, d] = payloadAround(f);
          const midsJson = `[${mids.map((m) => (m === null ? 'null' : String(m))).join(',')}]`;
          const filled = a + midsJson + b + (prevHash === null ? 'null' : `"${prevHash}"`) + c + String(seq) + d;
          const midsMicro = mids.map((m) => (m === null ? null : BigInt(m)));
          expect(filled).toBe(await canonicalPayload(f, { seq, prevHash, midsMicro }));
        },
      ),
      { numRuns: 500 },
    );
    // And one by hand: the order of the keys is the code-unit order RFC 8785 sorts by.
    expect(payloadAround(facts()).join('|')).toBe(
      '{"createdAt":"2026-11-25T10:00:00.000Z","id":"5d2c7a8e-0b8f-4a51-9f57-2b8f2f6f9a10","marketId":"sim-0001","mids":|,"prevHash":|' +
        ',"probabilities":[700000],"rationale":"Rain \\"likely\\" — models agree\\nsecond line","seq":|,"source":"stated","userId":"0f1e2d3c-4b5a-4968-8776-655443322110","v":1,"venue":"mirrored"}',
    );
  });
});

describe('chain verification', () => {
  test('when a chain is intact, then it verifies and its head is the last hash', async () => {
    const chain = await chainOf(4);
    expect(await verifyChain(chain)).toEqual({ ok: true, head: chain[3]!.hash, length: 4 });
    expect(await verifyChain([...chain].reverse())).toMatchObject({ ok: true });
    expect(await verifyChain([])).toEqual({ ok: true, head: null, length: 0 });
    expect(chain[0]!.hash).toBe(sha256Hex(await canonicalPayload(chain[0]!, chain[0]!)));
  });

  test.each([
    ['a probability rewritten', (c: ForecastRecord[]) => (c[1]!.probabilitiesMicro = [999999n]), 2],
    ['a stamped mid rewritten', (c: ForecastRecord[]) => (c[2]!.midsMicro = [1n]), 3],
    ['a time moved', (c: ForecastRecord[]) => (c[0]!.createdAt = new Date('2026-11-24T10:00:00.000Z')), 1],
    ['a record dropped', (c: ForecastRecord[]) => c.splice(1, 1), 3],
    ['a rationale edited', (c: ForecastRecord[]) => (c[3]!.rationale = 'hindsight'), 4],
  ])('when %s, then verification fails at that record', async (_l, alter, seq) => {
    const chain = await chainOf(4);
    alter(chain);
    expect(await verifyChain(chain)).toMatchObject({ ok: false, seq });
  });

  test('when a rewritten record is hashed again, then the next record no longer links to it', async () => {
    const chain = await chainOf(3);
    chain[0]!.probabilitiesMicro = [1n];
    chain[0]!.hash = await recordHash(chain[0]!);
    expect(await verifyChain(chain)).toMatchObject({ ok: false, seq: 2 });
  });
});
