import type { Page } from 'playwright-core';
import type { Trader } from './traders';

/**
 * The person signed in on a browser page as a Trader, so a test can put trades on their record over REST
 * (test/support/traders.ts buy/sell) with the page's own session cookie and the Origin the CSRF rule wants.
 */
export async function browserTrader(page: Page, baseUrl: string): Promise<Trader> {
  const cookie = (await page.context().cookies(baseUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
  const me = await page.request.get('/api/user/me');
  if (me.status() !== 200) throw new Error(`not signed in: ${me.status()}`);
  const { user } = (await me.json()) as { user: { id: string } };
  return { id: user.id, kind: 'person', cookie, headers: { Cookie: cookie, Origin: baseUrl } };
}
