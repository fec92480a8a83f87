/** The MCP client configuration for this service, as JSON a client's settings file takes. */
export function mcpConfig(origin: string, key: string): string {
  return JSON.stringify({ mcpServers: { 'paper-trading': { url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } } } }, null, 2);
}

/** A first session over REST: balance, a search, a quote and a buy (with an Idempotency-Key), positions. */
export function curlQuickstart(origin: string, key: string): string {
  return [
    `BASE=${origin}`,
    `KEY=${key}`,
    '',
    '# Your balance',
    `curl -s $BASE/api/user/balance -H "Authorization: Bearer $KEY"`,
    '',
    '# Find a market: note id, slug and outcomeTokens[].tokenId',
    'curl -s "$BASE/api/search?q=bitcoin"',
    '',
    '# Quote, then buy 50 dollars of YES (a retry with the same Idempotency-Key never trades twice)',
    `curl -s -X POST $BASE/api/trade/quote -H 'content-type: application/json' \\`,
    `  -d '{"side":"BUY","tokenId":"<yes tokenId>","amount":50}'`,
    `curl -s -X POST $BASE/api/trade -H "Authorization: Bearer $KEY" -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -H 'content-type: application/json' \\`,
    `  -d '{"marketId":"<id>","marketSlug":"<slug>","tokenId":"<yes tokenId>","outcome":"YES","amount":50}'`,
    '',
    '# Your positions',
    `curl -s $BASE/api/positions -H "Authorization: Bearer $KEY"`,
  ].join('\n');
}
