import { AppError } from '../errors/app-error';

/**
 * The value of a field sent under its glossary name or under the deprecated alias it replaced (docs/glossary.md); an
 * alias is accepted for one version, and both at once are refused (they could disagree).
 */
export function aliased<T>(name: string, value: T | undefined, alias: string, old: T | undefined): T | undefined {
  if (value !== undefined && old !== undefined) throw new AppError('VALIDATION_ERROR', `send ${name} or its deprecated alias ${alias}, not both.`);
  return value ?? old;
}
