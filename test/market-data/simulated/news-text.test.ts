import fc from 'fast-check';
import { SIM_EPOCH_MS } from '../../../src/market-data/simulated/catalog';
import { NEWS_SOURCES, newsEvents } from '../../../src/market-data/simulated/information';
import { SimulatedFeed } from '../../../src/market-data/simulated/simulated-feed';
import { testSeal } from '../../support/sealed-venue';

/**
 * The words of a news item (issue 49 item 2): each report has exactly one attribution, its source's, and names its
 * question in quotes. A mixed report used to read "…, according to an official statement, The Ledger reports": two
 * attributions in one clause. The attribution words are the test's own list, not the venue's.
 */

const DAY = 86_400_000;
const ATTRIBUTION =
  /\baccording to\b|\breports?\b|\bsays?\b|\bsaid\b|\bconfirm(s|ed)?\b|\bannounce[sd]?\b|\bclaims?\b|\bstatements?\b|\bothers\b|\binsiders\b/gi;
const seeds = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const times = fc.integer({ min: SIM_EPOCH_MS + 200 * DAY, max: SIM_EPOCH_MS + 1200 * DAY });

describe('the words of a news item (issue 49 item 2)', () => {
  jest.setTimeout(120_000);

  test('when news is read over many seeds, then every body has exactly one attribution, to its own source, and names its question', async () => {
    let mixed = 0;
    let items = 0;
    await fc.assert(
      fc.asyncProperty(seeds, times, async (seed, t) => {
        const v = new SimulatedFeed({ seed, speed: 1, information: true, seal: testSeal() }, { now: () => new Date(t) });
        for (const item of await v.news({ limit: 60 })) {
          const [, k, j] = /^news-sim-(\d+)-(\d+)$/.exec(item.id)!;
          const spec = v.spec(Number(k));
          const report = newsEvents(v.drawsOf(spec), spec)[Number(j)]!.report;
          expect(item.body).toContain(`"${spec.question}"`);
          const rest = item.body.split(`"${spec.question}"`).join('');
          expect(rest.match(ATTRIBUTION) ?? []).toHaveLength(1);
          const named = NEWS_SOURCES.filter((s) => rest.includes(s.name));
          expect(named.map((s) => s.name)).toEqual([NEWS_SOURCES[report.source]!.name]);
          expect(rest.split(NEWS_SOURCES[report.source]!.name)).toHaveLength(2);
          items += 1;
          if (report.stated === 0) mixed += 1;
        }
      }),
      { numRuns: 25 },
    );
    expect(items).toBeGreaterThan(1000);
    expect(mixed).toBeGreaterThan(50);
  });
});
