import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface Common {
  label: string;
  /** Shown under the control and tied to it (aria-describedby), so a screen reader reads it with the control. */
  error?: ReactNode;
  help?: ReactNode;
}

/** The label, help and inline error around one form control; `control` gets the id and aria attributes. */
function Wrapped({ label, error, help, control }: Common & { control: (a: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ReactNode }) {
  const id = useId();
  const described = [help ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': described })}
      {help ? (
        <p id={`${id}-help`} className="field-help">
          {help}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input with its own help and inline error. */
export function InputField({ label, error, help, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  return <Wrapped label={label} error={error} help={help} control={(a) => <input {...a} {...input} />} />;
}

/** A labelled multi-line text box. */
export function TextAreaField({ label, error, help, ...area }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <Wrapped label={label} error={error} help={help} control={(a) => <textarea {...a} {...area} />} />;
}

/** A labelled select; `options` are [value, label] pairs. */
export function SelectField({
  label,
  error,
  help,
  options,
  ...select
}: Common & SelectHTMLAttributes<HTMLSelectElement> & { options: ReadonlyArray<readonly [string, string]> }) {
  return (
    <Wrapped
      label={label}
      error={error}
      help={help}
      control={(a) => (
        <select {...a} {...select}>
          {options.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      )}
    />
  );
}
