import { z } from 'zod';
import { CONFIG_FIELDS } from '../config';

interface Setting {
  default?: unknown;
  description?: string;
  /** A default that depends on the machine (the CPU count) is written in words, so the page is the same everywhere. */
  shownDefault?: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * docs/configuration.md, every setting of src/config.ts with its default and meaning, made from the schema itself
 * (npm run schemas writes it; test/documents/schemas-drift.test.ts fails when the committed file differs), so a new or
 * changed variable cannot be left out of the table. A setting without a description throws: the table would lie.
 */
export function configurationReference(fields: z.ZodObject = CONFIG_FIELDS): string {
  const schema = z.toJSONSchema(fields, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, Setting> };
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config.ts by `npm run schemas`; describe a setting there, not in this file. -->',
    '',
    'Every setting is an environment variable with a default that works offline; an empty value counts as unset. A bad',
    'value stops the process at start with one line naming the variable (exit code 2).',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
  ];
  for (const [name, s] of Object.entries(schema.properties)) {
    if (!s.description) throw new Error(`src/config.ts: ${name} has no description (.describe(...))`);
    const shown = s.shownDefault ?? (s.default === undefined ? 'unset' : `\`${String(s.default)}\``);
    lines.push(`| \`${name}\` | ${cell(shown)} | ${cell(s.description)} |`);
  }
  return lines.join('\n') + '\n';
}
