import { loadConfig, type Config } from '../config';
import { LIMIT_CLASSES, LOGIN_FAILURES_PER_ACCOUNT, type LimitClass } from '../limits/rate-limiter';
import type { AnyMethod } from '../registry/method';
import { runBudgetSection } from './run-budget-reference';

/** What the `api` class also counts besides its methods. */
const API_ALSO = '`POST /oauth/token`, failed credentials';

/** How the limits behave, whatever their numbers: written once here, below the generated table. */
const BEHAVIOUR = `Windows are fixed, one minute (15 minutes for failed sign-ins; a successful sign-in is taken back out of
that count). IPv6 clients are counted per /56. Behind a proxy set \`TRUST_PROXY\` so the client IP is
right. Over the limit the error is \`RATE_LIMITED\` with the hint "Retry after N seconds". On REST and a single
JSON-RPC call it is HTTP 429 with the headers \`Retry-After: N\`, \`RateLimit: "<class>";r=0;t=N\` and
\`RateLimit-Policy: "<class>";q=<limit>;w=60\` (draft-ietf-httpapi-ratelimit-headers), exposed to browsers
through CORS; inside a JSON-RPC batch and on MCP it is that call's error (MCP: an \`isError\` result) and
the HTTP status stays 200, so the wait travels in the error itself: \`retryAfterSeconds\` (N) in JSON-RPC
\`error.data\` and in the MCP result's \`structuredContent\` (every error that has a \`Retry-After\` carries it,
REST bodies too: 429, 503 \`SERVICE_UNAVAILABLE\`, 409 \`CONFLICT\` in flight). Responses under the limit carry no
rate-limit headers.

Conditional reads are free. A public REST read (\`GET\`, auth \`public\`: markets, odds, price history, search,
categories, the order book, news, community markets) answers with an \`ETag\` and \`Cache-Control: no-cache\`;
the same request with \`If-None-Match: <that ETag>\` is answered \`304 Not Modified\` (no body) while the
answer is unchanged, and a 304 is not counted against \`api\`, only against a revalidation budget of ten
times the \`api\` limit (so a flood of them cannot run reads without end). A conditional read that returns
data, or fails, is counted as any call: the limits on calls that return data are unchanged. Browsers send
\`If-None-Match\` by themselves. (A market's odds carry their age in seconds, so their ETag changes each
second while a price is live; lists, history and categories change only with the data.)

Every surface goes through the same pipeline (authenticate → rate limit → validate → handler), so a
REST call, each call of a JSON-RPC batch, an A2A message that runs a skill and an MCP \`tools/call\` each
count once; MCP \`initialize\` and \`tools/list\` and the documents are not counted. Counters live in the
process by default. With \`REDIS_URL\` they live in Redis (keys \`<REDIS_PREFIX>rl:<class>:…\`), shared by
every process. A call Redis does not answer within 500 ms is counted in the process instead (logged); after
3 such failures in a row a circuit opens and calls skip Redis without waiting, counted per process, while
one call every 5 s probes Redis in the background and closes the circuit when it answers. \`/ready\` reports
\`redis: ok\` or \`degraded\`, never failing readiness for it: the limiter can never take the API down.`;

/** How a person's browser session is counted (src/registry/invoke.ts limitKey): defaults from src/config.ts. */
function browserBudgetSection(defaults: Config): string {
  const times = defaults.WEB_RATE_LIMIT_TIMES;
  const api = defaults.RATE_LIMIT_API_PER_MIN;
  return `## A person's browser budget

A person browsing the web app opens pages by address, reloads, opens new tabs and goes back and forward, and each
full load starts the page's reads again (about five calls). So \`api\` calls that carry a **person's session cookie** (their public reads and streams too: the page sends it
with every call) count against a browser budget of their own: the \`api\` limit times \`WEB_RATE_LIMIT_TIMES\` (${times} by
default: ${api * times} a minute), per account, on counters of their own (\`RateLimit-Policy: "browser";q=${api * times};w=60\`
when met; in Redis under \`<REDIS_PREFIX>rl:browser:…\`); \`whoami\` reports that budget as the session's \`api\` class.
Nothing else changes: an API key or an OAuth access token, an agent's session (an agent account that signs in
with its password), a replay run's key and an anonymous caller keep the \`api\` limit above exactly (${api} a minute),
and a browser session's trades, sells and comments count on the account's own \`trade\`, \`sell\` and \`comment\`
counters, as any of the account's calls do. An agent therefore gains nothing by its key (nor by signing in with its
password), and a person's full page loads never meet the limit meant for programs.`;
}

/**
 * docs/rate-limits.md: each class with the registry's methods in it and its default budget from src/config.ts
 * (LIMIT_CLASSES, which the limiter itself reads), then how the limits behave. `npm run schemas` writes it;
 * test/documents/schemas-drift.test.ts fails when the committed page differs, so a method that changes class, or a
 * new class, cannot leave the page behind.
 */
export function rateLimitsReference(methods: readonly AnyMethod[], defaults: Config = loadConfig({})): string {
  const lines = [
    '# Rate limits',
    '',
    '<!-- Generated from the method registry and src/config.ts by `npm run schemas`; edit src/documents/rate-limits-reference.ts. -->',
    '',
    '| class | methods | default limit | counted per |',
    '|---|---|---|---|',
  ];
  for (const [cls, c] of Object.entries(LIMIT_CLASSES) as Array<[LimitClass, (typeof LIMIT_CLASSES)[LimitClass]]>) {
    const names = methods.filter((m) => m.limit === cls).map((m) => `\`${m.name}\``);
    const listed = cls === 'api' ? `every other method (${names.length}), ${API_ALSO}` : names.join(', ');
    const perMinute = (defaults[c.setting] as number) * (c.times ?? 1);
    const source = c.times ? `${c.times} × \`${c.setting}\`` : `\`${c.setting}\``;
    const extra = cls === 'login' ? `, and ${LOGIN_FAILURES_PER_ACCOUNT} failed sign-ins per account per 15 minutes` : '';
    lines.push(`| \`${cls}\` | ${listed} | ${perMinute} a minute (${source})${extra} | ${c.countedPer} |`);
  }
  return [...lines, '', BEHAVIOUR, '', browserBudgetSection(defaults), '', runBudgetSection(defaults), ''].join('\n');
}
