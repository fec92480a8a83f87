/**
 * What a person can do about an error, by its stable code, in the app's words. The service's own hints are written for agents
 * (they name methods: "Read get_balance…", "…with GET /api/challenges"), so the app never shows them; a code without an entry
 * here shows its message alone.
 */
export const ERROR_HINTS: Readonly<Record<string, string>> = {
  INSUFFICIENT_BALANCE: 'You can spend your available cash: your balance less what open orders reserve. Use a smaller amount, or cancel an open order.',
  MARKET_CLOSED: 'This market no longer trades: find an active one on the markets page.',
  POSITION_CLOSED: 'This position is already closed: your portfolio shows what you still hold.',
  PRICE_UNAVAILABLE: 'Try again in a moment.',
  NOT_COMPLETED: 'Complete the challenge first: its progress is on the challenge page.',
  ALREADY_CLAIMED: 'This reward is already yours.',
  INTERNAL: 'Try again; if it happens again, quote the request id below.',
  SERVICE_UNAVAILABLE: 'Try again in a moment.',
  NETWORK_ERROR: 'Check the connection and try again.',
  APP_ERROR: 'Reload the page; if it happens again, the error above says what broke.',
};
