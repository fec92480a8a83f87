import { ALL_METHODS } from '../../src/methods';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from '../../src/documents/json-schema';
import { DATA_KEYS, MARKET_STATUSES, SPEC_FIXED, SYNONYMS } from '../../src/registry/vocabulary';

/** One field of one method's input or output schema. */
interface Field {
  where: string; // `<method>.<input|output>:<path>`, `[]` for an array's items
  name: string;
  schema: JsonSchema;
}

function fieldsOf(schema: unknown, at: string, out: Field[] = []): Field[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as JsonSchema;
  for (const [name, sub] of Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {})) {
    const where = `${at}${at.endsWith(':') ? '' : '.'}${name}`;
    out.push({ where, name, schema: sub });
    fieldsOf(sub, where, out);
  }
  if (s.items) fieldsOf(s.items, `${at}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const branch of (s[key] as unknown[] | undefined) ?? []) fieldsOf(branch, at, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') fieldsOf(s.additionalProperties, `${at}{}`, out);
  for (const def of Object.values((s.$defs as Record<string, unknown> | undefined) ?? {})) fieldsOf(def, at, out);
  return out;
}

const ALL_FIELDS: Field[] = ALL_METHODS.flatMap((m) => [
  ...fieldsOf(inputSchemaOf(m), `${m.name}.input:`),
  ...fieldsOf(outputSchemaOf(m), `${m.name}.output:`),
]);

/** The string values a field may hold (its enum, through a nullable anyOf), or undefined when it is not an enum. */
function enumOf(schema: JsonSchema): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum as string[];
  const branches = (schema.anyOf as JsonSchema[] | undefined) ?? [];
  const values = branches.flatMap((b) => (Array.isArray(b.enum) ? (b.enum as string[]) : []));
  return values.length ? values : undefined;
}

describe('one vocabulary across the registry (docs/glossary.md)', () => {
  it('when the registry is walked, then it has fields to check (the walk reaches inputs, outputs and array items)', () => {
    expect(ALL_FIELDS.length).toBeGreaterThan(1000);
    expect(ALL_FIELDS.map((f) => f.where)).toEqual(
      expect.arrayContaining(['paper_trade.input:amount', 'get_portfolio.output:positions[].avgPrice', 'list_orders.output:orders[].avgPrice']),
    );
  });

  it('when a field has a known meaning, then it uses the glossary name (an old name only as a deprecated alias or where the SPEC fixes it)', () => {
    const offenders = ALL_FIELDS.filter((f) => f.name in SYNONYMS && f.schema.deprecated !== true && !SPEC_FIXED.has(f.where)).map(
      (f) => `${f.where}: use ${SYNONYMS[f.name]!.use} (${SYNONYMS[f.name]!.why})`,
    );
    expect(offenders).toEqual([]);
  });

  it('when the SPEC fixes a name, then that field exists (the exceptions list names no field that is gone)', () => {
    const where = new Set(ALL_FIELDS.map((f) => f.where));
    expect([...SPEC_FIXED].filter((w) => !where.has(w))).toEqual([]);
  });

  it('when a field is deprecated, then its description says so and names the glossary name that replaces it', () => {
    const deprecated = ALL_FIELDS.filter((f) => f.schema.deprecated === true);
    expect(deprecated.length).toBeGreaterThan(0);
    const unexplained = deprecated.filter((f) => {
      const text = String(f.schema.description ?? '');
      const replacement = SYNONYMS[f.name]?.use.split(' ')[0];
      return !text.startsWith('Deprecated') || (replacement !== undefined && !text.includes(replacement));
    });
    expect(unexplained.map((f) => `${f.where}: ${String(f.schema.description)}`)).toEqual([]);
  });

  it('when a field is named, then it is camelCase (data keys aside)', () => {
    const bad = ALL_FIELDS.filter((f) => !/^[a-z][a-zA-Z0-9]*$/.test(f.name) && !DATA_KEYS.has(f.name)).map((f) => f.where);
    expect(bad).toEqual([]);
  });

  it("when a field is a lifecycle, then status is a market's (active, closed, resolved) and state is your own object's", () => {
    // A deprecated duplicate (a delivery attempt's old status, now httpStatus) is the alias being retired.
    const statuses = ALL_FIELDS.filter((f) => f.name === 'status' && f.schema.deprecated !== true);
    const states = ALL_FIELDS.filter((f) => f.name === 'state');
    expect(statuses.length).toBeGreaterThan(0);
    expect(states.length).toBeGreaterThan(0);
    expect(statuses.filter((f) => !(enumOf(f.schema) ?? ['?']).every((v) => MARKET_STATUSES.has(v))).map((f) => f.where)).toEqual([]);
    expect(states.filter((f) => (enumOf(f.schema) ?? []).some((v) => MARKET_STATUSES.has(v))).map((f) => f.where)).toEqual([]);
  });

  it('when a method pages, then it takes cursor and answers nextCursor (one pair on every list)', () => {
    const unpaired = ALL_METHODS.filter((m) => {
      const takes = 'cursor' in ((inputSchemaOf(m).properties as object | undefined) ?? {});
      const answers = 'nextCursor' in ((outputSchemaOf(m).properties as object | undefined) ?? {});
      return takes !== answers;
    });
    expect(unpaired.map((m) => m.name)).toEqual([]);
  });
});
