import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureWebBuilt, WEB_DIST, WEB_MANIFEST } from '../support/web-build';
import { APP_ONLY_PAGES } from '../../src/http/pages/web-app-pages';

interface Chunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

const FIRST_PAGE_JS_LIMIT = 150 * 1024;

describe("the web app's build (dist/web/.vite/manifest.json)", () => {
  let manifest: Record<string, Chunk>;
  beforeAll(async () => {
    await ensureWebBuilt();
    manifest = JSON.parse(fs.readFileSync(WEB_MANIFEST, 'utf8')) as Record<string, Chunk>;
  }, 120_000);

  /** A chunk and everything it imports statically: what the browser must fetch before the page runs. */
  function staticClosure(key: string, seen = new Set<string>()): Set<string> {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const dep of manifest[key]?.imports ?? []) staticClosure(dep, seen);
    return seen;
  }

  test('when the first page loads, then its JavaScript is at most 150 kB gzipped', () => {
    const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
    expect(entry).toBe('index.html');
    const bytes = [...staticClosure(entry!)].reduce((sum, k) => sum + gzipSync(fs.readFileSync(path.join(WEB_DIST, manifest[k]!.file))).length, 0);
    expect(bytes).toBeGreaterThan(10 * 1024);
    expect(bytes).toBeLessThanOrEqual(FIRST_PAGE_JS_LIMIT);
  });

  test('when the app is built, then the chart code is its own chunk, loaded only on demand, and the chart library (uPlot) is not in the first page', () => {
    const chart = manifest['src/components/price-chart.tsx'];
    expect(chart?.isDynamicEntry).toBe(true);
    expect(manifest['index.html']!.dynamicImports).toContain('src/components/price-chart.tsx');
    expect([...staticClosure('index.html')]).not.toContain('src/components/price-chart.tsx');
    // uPlot names its root element's class "uplot": that string marks where its code is.
    const code = (keys: Iterable<string>) => [...keys].map((k) => fs.readFileSync(path.join(WEB_DIST, manifest[k]!.file), 'utf8')).join('\n');
    const chartCode = code(staticClosure('src/components/price-chart.tsx'));
    const firstPageCode = code(staticClosure('index.html'));
    expect(chartCode).toMatch(/["'`]uplot["'`]/);
    expect(firstPageCode).not.toMatch(/["'`]uplot["'`]/);
  });

  test("when an app-only page is opened, then its module (which the service's HTML starts with the entry) is a chunk of its own, outside the first page", () => {
    const firstPage = staticClosure('index.html');
    for (const page of APP_ONLY_PAGES) {
      expect([page.path, manifest[page.module]?.isDynamicEntry]).toEqual([page.path, true]);
      expect(firstPage).not.toContain(page.module);
    }
  });
});
