import type { Page } from 'playwright-core';
import { PATHS } from '../../web/src/lib/paths';

type Market = { id: string; slug: string; question: string; outcomeTokens: { outcome: 'YES' | 'NO'; tokenId: string }[] };

/** What a person who has used the app holds: a mirrored market traded, a community market made, their own id. */
export interface UsedAccount {
  market: Market;
  communitySlug: string;
  userId: string;
}

/**
 * Gives the signed-in person on `page` something on every page: a $100 YES buy and a finished order on the
 * first simulated market (positions, trade and order history), and a community market of their own.
 */
export async function useTheApp(page: Page, baseUrl: string): Promise<UsedAccount> {
  const headers = { Origin: baseUrl };
  const list = (await (await page.request.get('/api/markets?limit=1')).json()) as { markets: Market[] };
  const market = list.markets[0]!;
  const yes = market.outcomeTokens.find((t) => t.outcome === 'YES')!;
  const bought = await page.request.post('/api/trade', {
    headers,
    data: { marketId: market.id, marketSlug: market.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 100 },
  });
  if (bought.status() !== 200) throw new Error(`buy: ${bought.status()} ${await bought.text()}`);
  const order = await page.request.post('/api/orders', {
    headers,
    data: { tokenId: yes.tokenId, side: 'BUY', limitPrice: 0.01, size: 100, timeInForce: 'IOC' },
  });
  if (order.status() !== 200) throw new Error(`order: ${order.status()} ${await order.text()}`);
  const made = await page.request.post('/api/user-markets', {
    headers,
    data: {
      question: 'Will the night bus run on time?',
      category: 'Travel',
      outcomes: ['Yes', 'No'],
      endDate: new Date(Date.now() + 3 * 86400_000).toISOString(),
    },
  });
  if (made.status() !== 200) throw new Error(`community market: ${made.status()} ${await made.text()}`);
  const me = (await (await page.request.get('/api/user/me')).json()) as { user: { id: string } };
  return { market, communitySlug: ((await made.json()) as { slug: string }).slug, userId: me.user.id };
}

/** Every page of the app (each pattern of PATHS, the route table's keys) at an address that shows it with content. */
export function everyPage(used: UsedAccount): { pattern: string; path: string }[] {
  const at: Record<string, string> = {
    [PATHS.market]: `/markets/${used.market.slug}`,
    [PATHS.trader]: `/traders/${used.userId}`,
    [PATHS.communityMarket]: `/community-markets/${used.communitySlug}`,
  };
  return Object.values(PATHS).map((pattern) => ({ pattern, path: at[pattern] ?? pattern }));
}

/** Opens a page and waits for it to be drawn: its heading, and no "Loading…" line left. */
export async function openPage(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  // Polled from here: waitForFunction evaluates a string, which the app's CSP (no unsafe-eval) refuses.
  for (let tries = 0; (await page.locator('.loading').count()) > 0; tries += 1) {
    if (tries > 200) throw new Error(`${path} is still loading`);
    await page.waitForTimeout(100);
  }
}
