import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { backends } from './backends';
import { startTestApp, type TestApp, type TestAppOptions } from './app';
import { ensureWebBuilt, ROOT } from './web-build';

/** Debian's Chromium (apt-get install chromium); Playwright's own browser download is not reachable here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_SKIP_REASON = `Chromium is not installed at ${CHROMIUM_PATH}`;

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser suite: runs when Chromium is installed, else one skipped suite whose title says why. */
export function describeWithChromium(title: string, body: () => void): void {
  if (fs.existsSync(CHROMIUM_PATH)) describe(title, body);
  else describe.skip(`${title} (skipped: ${CHROMIUM_SKIP_REASON})`, body);
}

export interface WebHarness {
  /** The running service (PGlite in memory, simulated venue, high rate limits), listening on baseUrl. */
  app: TestApp;
  baseUrl: string;
  browser: Browser;
  /** A fresh browser context (its own cookies) and page; width 390 for the phone checks. */
  newPage(opts?: { width?: number; javaScript?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The real service with the built web app, and headless Chromium: build the app if it is stale, start the
 * service on a port (its own origin is BASE_URL, so the app's writes pass the same-origin rule), launch.
 * Pages record console errors and failed responses' CSP reports in `pageErrors(page)`.
 */
export async function startWebHarness(opts: TestAppOptions = {}): Promise<WebHarness> {
  await ensureWebBuilt();
  const app = await startTestApp(backends()[0]!, { ...opts, listen: true });
  // A host name other than 127.0.0.1 or localhost makes the app's origin an insecure one (plain http, as behind the
  // documented HAProxy): no Web Locks, no secure-only APIs. Chromium is told where that name is.
  const resolve = opts.hostName ? [`--host-resolver-rules=MAP ${opts.hostName} 127.0.0.1`] : [];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...resolve] });
  const contexts: BrowserContext[] = [];
  return {
    app,
    baseUrl: app.baseUrl,
    browser,
    async newPage({ width = 1280, javaScript = true } = {}) {
      const context = await browser.newContext({
        baseURL: app.baseUrl,
        viewport: { width, height: width < 600 ? 844 : 900 },
        reducedMotion: 'reduce',
        javaScriptEnabled: javaScript,
      });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        // A signed-out visitor's account probe is answered 401 by design; the browser logs that as an error.
        if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      ERRORS.set(page, errors);
      if (javaScript) waitForTheAppOnLoads(page);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await app.close();
    },
  };
}

/**
 * A page that carries the service's first view is on screen before the app runs (web/src/boot.ts starts it once the
 * view is painted), and what a test does next (a click, a read of what the app shows) is the app's: so a load by
 * goto or reload returns once the app's first render has replaced the view's fold (the server's page beneath it).
 */
function waitForTheAppOnLoads(page: Page): void {
  const started = async () => {
    if ((await page.locator('#first-reads').count()) > 0) await page.locator('details.server-page').waitFor({ state: 'detached' });
  };
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  page.goto = async (...args) => {
    const res = await goto(...args);
    await started();
    return res;
  };
  page.reload = async (...args) => {
    const res = await reload(...args);
    await started();
    return res;
  };
}

const ERRORS = new WeakMap<Page, string[]>();

/** Console errors and uncaught exceptions the page has had (CSP violations arrive as console errors). */
export function pageErrors(page: Page): string[] {
  return ERRORS.get(page) ?? [];
}

let people = 0;

/** Signs a new person up through the sign-up form (each test its own person); returns what was typed. */
export async function signUp(page: Page, opts: { displayName?: string; referralCode?: string } = {}) {
  people += 1;
  const person = {
    email: `person${people}-${Date.now()}@example.com`,
    password: 'correct-horse-1',
    displayName: (opts.displayName ?? `Person ${people}`).slice(0, 20),
  };
  await page.goto('/signup');
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByLabel('Display name').fill(person.displayName);
  if (opts.referralCode) await page.getByLabel('Referral code (optional)').fill(opts.referralCode);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByLabel('Signed in as').filter({ hasText: person.displayName }).waitFor();
  return person;
}

/** Signs out as a person does: Sign out is inside the header's account menu (web/src/app/header.tsx). */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
}

/** Opens a page listed in the header's account menu (My profile, Notifications, Settings). */
export async function openFromAccountMenu(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('link', typeof name === 'string' ? { name, exact: true } : { name }).click();
}

/** Opens a page listed under the header's More menu (Watchlist, Replay, Replay board, Challenge, Agents). */
export async function openFromMore(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'More' }).click();
  await nav.getByRole('link', { name, exact: true }).click();
}

/** axe-core on the page as it is now: no serious or critical violation (the list is the failure message). */
export async function expectNoSeriousAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(serious).toEqual([]);
}

/** At the page's current width nothing makes the page scroll sideways. */
export async function expectNoSideScroll(page: Page): Promise<void> {
  // Runs in the page; a string keeps the service's tsconfig free of DOM types.
  const { scrollWidth, innerWidth } = (await page.evaluate('({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })')) as {
    scrollWidth: number;
    innerWidth: number;
  };
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** A screenshot for the README and docs/: docs/screenshots/<name>.png, retaken by every run so it stays current. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ROOT, 'docs', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/**
 * Presses Tab until the focused element's accessible text (its label, aria-label or text) matches, as a
 * keyboard-only person would reach it; fails after `max` presses.
 */
export async function tabTo(page: Page, name: RegExp, max = 60): Promise<void> {
  const focusedName = `(() => {
    const el = document.activeElement;
    if (!el) return '';
    const labelled = el.id ? document.querySelector('label[for="' + CSS.escape(el.id) + '"]') : null;
    return (el.getAttribute('aria-label') || (labelled && labelled.textContent) || el.textContent || '').trim();
  })()`;
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (name.test((await page.evaluate(focusedName)) as string)) return;
  }
  throw new Error(`Tab never reached an element named ${name}`);
}
