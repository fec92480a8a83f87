/**
 * The named groups of MCP tools (issue 51 item 1), each method in one (its `toolset` in the registry). A client picks
 * groups by address (`/mcp/x/{toolset}`, `?toolsets=a,b`, the `X-MCP-Toolsets` header; src/transports/mcp-selection.ts),
 * GitHub's hosted MCP pattern, so a model's context holds only the tools its conversation needs.
 */
export const TOOLSETS = {
  markets: 'Find markets; read odds, order books, price history and news; a watchlist.',
  trading: 'Quote and trade at the market (with a stated forecast), sell and close positions.',
  orders: 'Limit orders: place (one or a batch), amend, cancel, read.',
  portfolio: 'Balance, positions, their history, and trades.',
  benchmark: 'The forecasting benchmark: state forecasts, read your record and the boards, export.',
  replay: 'Replay runs: start a run over past or simulated markets, step it, read its record; the replay suite.',
  community: 'Community markets with a market maker: list, create, resolve, quote and trade.',
  social: 'Leaderboards, reputation, comments, challenges and notifications.',
  account: 'Register, who am I, profile, keys and the agent card.',
  webhooks: 'Webhooks and the account event log.',
} as const;

export type Toolset = keyof typeof TOOLSETS;

export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

/** Every tool, in `?toolsets=all` (or `/mcp/x/all`). */
export const ALL_TOOLSETS = 'all';

/** What /mcp serves when no toolset is named: the methods marked `defaultTool` (a first conversation's tools). */
export const DEFAULT_TOOLSET = 'default';

/** What of a method a selection reads (a method, without importing method.ts: it imports this file). */
interface ToolsetMember {
  toolset: Toolset;
  defaultTool?: true;
  annotations: { readOnlyHint?: boolean };
}

/** The methods of a selection of toolsets (or of the default set), optionally only the read-only ones, in registry order. */
export function methodsOf<M extends ToolsetMember>(methods: readonly M[], selection: { toolsets: readonly string[]; readOnly: boolean }): M[] {
  const names = new Set(selection.toolsets);
  return methods.filter((m) => {
    const chosen = names.has(ALL_TOOLSETS) || names.has(m.toolset) || (names.has(DEFAULT_TOOLSET) && m.defaultTool === true);
    return chosen && (!selection.readOnly || m.annotations.readOnlyHint === true);
  });
}
