import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { Loading } from '../../components/loading';
import { useAccount } from '../../lib/account';
import { ApiError } from '../../lib/api/api-error';
import { ProfileSection } from './profile-section';
import { PasswordSection } from './password-section';
import { LogoutAllSection } from './logout-all-section';
import { RotateKeySection } from './rotate-key-section';
import { DeleteAccountSection } from './delete-account-section';
import { InviteLink } from '../../components/invite-link';

/** Account settings: one section per thing a person can change. */
export function SettingsPage() {
  usePageTitle('Account settings');
  const account = useAccount();
  if (account.isPending) return <Loading what="your account" />;
  if (account.isError) return <ErrorMessage error={account.error} />;
  // Signed out: the error display sends the person to sign in and back here.
  if (!account.data) return <ErrorMessage error={new ApiError(401, 'UNAUTHORIZED', 'Sign in to change your settings.')} />;
  return (
    <>
      <h1>Account settings</h1>
      <ProfileSection displayName={account.data.displayName} />
      <InviteLink referralCode={account.data.referralCode} />
      <PasswordSection />
      <LogoutAllSection />
      <RotateKeySection />
      <DeleteAccountSection />
    </>
  );
}
