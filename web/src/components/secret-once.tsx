import { CopyButton } from './copy-button';

/** A secret the service shows only once (an API key), with copy and the warning that it will not be shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret" role="group" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown only now. Store it before leaving this page.
      </p>
      <p className="secret-row">
        <code aria-label={label}>{value}</code> <CopyButton text={value} what={label} />
      </p>
    </div>
  );
}
