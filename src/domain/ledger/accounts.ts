/**
 * The ledger's accounts, by name (a transfer's debit_account and credit_account). Accounts with a limit carry a
 * maintained balance on their own row — a person's cash (cash_balances.balance_micro, reserved_micro, ledger/cash.ts), a holding
 * (positions.quantity_micro, reserved_micro), a community pool's cash (pool_balances.cash_micro, ledger/pool-cash.ts) — that must always
 * equal the sum of their transfers. The counter-accounts keep no stored balance (the audit sums them), so no trade waits
 * on a hot row: the venue (the other side of every mirrored or simulated fill), grants, rewards and settlement.
 */
export const VENUE = 'venue';
export const GRANTS = 'grants';
export const REWARDS = 'rewards';
export const SETTLEMENT = 'settlement';

/** The asset of a cash transfer; a share transfer's asset is its token id. */
export const USD = 'USD';

export const cashAccount = (userId: string) => `cash:${userId}`;
export const positionAccount = (positionId: string) => `position:${positionId}`;
export const poolAccount = (marketId: string) => `pool:${marketId}`;

/** The same names as SQL expressions over SQL values (parameters like `$1`, columns). */
export const cashAccountSql = (user: string) => `('cash:' || ${user})`;
export const positionAccountSql = (position: string) => `('position:' || ${position})`;
export const poolAccountSql = (market: string) => `('pool:' || ${market})`;
