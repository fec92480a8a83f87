import { ALL_METHODS } from '../../src/methods';
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
      for (const text of [m.summary, m.description, ...texts(inputSchemaOf(m)), ...texts(outputSchemaOf(m))])
        if (INTERNAL.test(text)) found.push(`${m.name}: ${text}`);
    expect(found).toEqual([]);
  });
});
