import { CopyButton } from './copy-button';
import { PATHS } from '../lib/paths';

/** The sign-up link with this person's referral code (the sign-up page pre-fills it from ?ref=). */
export const inviteUrl = (origin: string, referralCode: string) => `${origin}${PATHS.signUp}?ref=${encodeURIComponent(referralCode)}`;

/** The person's invite link, to copy; someone who signs up with it earns the inviter the referral reward. */
export function InviteLink({ referralCode }: { referralCode: string }) {
  const url = inviteUrl(window.location.origin, referralCode);
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite friends</h2>
      <p>Anyone who signs up with your link joins with your referral code {referralCode}: you earn XP and a notification.</p>
      <p className="invite">
        <code aria-label="Your invite link">{url}</code> <CopyButton text={url} what="your invite link" />
      </p>
    </section>
  );
}
