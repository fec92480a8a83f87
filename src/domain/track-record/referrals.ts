import type { Queryable } from '../../db/database';
import { notify } from '../notifications/notify';
import { addXp, awardBadge } from './awards';
import { XP_RULES } from './levels';

/**
 * Referral reward, inside the new account's registration transaction: the referrer gets XP (for at most
 * XP_RULES.maxRewardedReferrals referrals), the Recruiter badge, and a notification. No cash: accounts are
 * free and emails unverified, so anyone can register accounts with their own code; a cash reward would mint
 * money at the registration rate limit, while bounded XP and a badge cannot move balances or PnL boards.
 */
export async function rewardReferral(
  tx: Queryable,
  account: { id: string; referredBy: string | null; at: Date },
  changed: (userId: string, seq: number) => void = () => {},
): Promise<void> {
  const referrer = account.referredBy;
  if (!referrer) return;
  // Lock the referrer so concurrent registrations count each other and the cap holds exactly. NO KEY UPDATE:
  // each registration already holds KEY SHARE on it (the referred_by foreign key), which FOR UPDATE would deadlock on.
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [referrer]);
  const rows = await tx.query<{ n: bigint; name: string }>(
    'SELECT (SELECT count(*) FROM users WHERE referred_by = $1) AS n, (SELECT display_name FROM users WHERE id = $2) AS name',
    [referrer, account.id],
  );
  const n = Number(rows[0]?.n ?? 0n);
  const rewarded = n <= XP_RULES.maxRewardedReferrals;
  // The referrer's board row shows the XP once the board folder has copied their account row.
  if (rewarded) await addXp(tx, referrer, XP_RULES.perReferral, account.at, changed);
  await awardBadge(tx, referrer, 'recruiter', account.at, changed);
  await notify(tx, {
    userId: referrer,
    type: 'referral',
    title: 'Someone joined with your referral code',
    message: `${rows[0]?.name ?? 'A new trader'} registered with your code.${rewarded ? ` You earned ${XP_RULES.perReferral} XP.` : ` Referral XP is paid for your first ${XP_RULES.maxRewardedReferrals} referrals only.`}`,
    ref: account.id,
    at: account.at,
  });
}
