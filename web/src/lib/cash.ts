/**
 * True when a buy of `amount` dollars needs more than the cash available (the account's available: cash less what
 * resting orders reserve), compared in micro-dollars as the service does; false while the available cash is unknown,
 * so the service stays the judge until the account is read.
 */
export function isShortOfCash(amount: number, available: number | null | undefined): boolean {
  if (available === null || available === undefined) return false;
  return Math.round(amount * 1e6) > Math.round(available * 1e6);
}
