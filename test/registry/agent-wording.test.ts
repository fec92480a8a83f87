import { ALL_METHODS } from '../../src/methods';
import { ERROR_CODES } from '../../src/errors/app-error';
import { inputSchemaOf, outputSchemaOf } from '../../src/documents/json-schema';

/** Text an agent reads (descriptions of methods and fields) names no bookkeeping of ours: not the SPEC, not an issue. */
const INTERNAL = /\bSPEC\b|\bissue \d+\b/;

function texts(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) for (const s of schema) texts(s, out);
  else if (schema && typeof schema === 'object')
    for (const [k, v] of Object.entries(schema)) {
      if ((k === 'description' || k === 'title') && typeof v === 'string') out.push(v);
      else texts(v, out);
    }
  return out;
}

describe('agent-facing wording', () => {
  it('when a method or any of its fields is described, then the text holds no internal note', () => {
    const found: string[] = [];
    for (const m of ALL_METHODS)
      for (const text of [m.summary, m.brief, m.description, ...texts(inputSchemaOf(m)), ...texts(outputSchemaOf(m))])
        if (INTERNAL.test(text)) found.push(`${m.name}: ${text}`);
    expect(found).toEqual([]);
  });

  it('when a method is briefed for a model (tools/list, agent card skills), then the brief is short and names no error code itself', () => {
    const problems: string[] = [];
    for (const m of ALL_METHODS) {
      // About 250 characters: what it does, when to use it, what it costs. The codes are appended from `errors`.
      if (m.brief.length > 270) problems.push(`${m.name}: brief of ${m.brief.length} characters`);
      if (m.brief.length >= m.description.length) problems.push(`${m.name}: brief not shorter than the description`);
      const named = ERROR_CODES.filter((code) => new RegExp(`\\b${code}\\b`).test(m.brief));
      if (named.length > 0 || /\bErrors?:/.test(m.brief)) problems.push(`${m.name}: brief names an error code: ${named.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });
});
