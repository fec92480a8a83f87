import { ALL_METHODS } from '../../src/methods';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from '../../src/documents/json-schema';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN_FIELDS,
  DATA_KEYS,
  DEPRECATIONS,
  MARKET_STATUSES,
  RETIRED_BIN_FIELDS,
  RETIRED_PROBABILITY_NAMES,
  SPEC_FIXED,
  STATED_PROBABILITY,
  SYNONYMS,
} from '../../src/registry/vocabulary';
import { deprecatedCallsIn, webDeprecatedCalls, webDeprecatedUses, type AliasPath } from '../support/web-deprecated-uses';

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

  it('when a field is deprecated, then it has its announcement and sunset dates (src/registry/vocabulary.ts DEPRECATIONS), sunset at least 90 days on', () => {
    const deprecated = ALL_FIELDS.filter((f) => f.schema.deprecated === true);
    expect(deprecated.filter((f) => !DEPRECATIONS[f.name]).map((f) => f.where)).toEqual([]);
    for (const [name, d] of Object.entries(DEPRECATIONS)) {
      expect([name, (Date.parse(d.sunset) - Date.parse(d.since)) / 86_400_000 >= 90]).toEqual([name, true]);
    }
  });

  it('when a field is deprecated, then docs/glossary.md lists it under its method with its dates', () => {
    const rows = readFileSync(join(__dirname, '../../docs/glossary.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    const missing = ALL_FIELDS.filter((f) => f.schema.deprecated === true)
      .map((f) => ({ method: f.where.split('.')[0]!, name: f.name }))
      .filter(({ method, name }) => {
        const d = DEPRECATIONS[name]!;
        return !rows.some((r) => {
          const [, methods, old] = r.split('|');
          return methods!.includes(`\`${method}\``) && old!.includes(`\`${name}\``) && r.includes(`| ${d.since} | ${d.sunset} |`);
        });
      })
      .map(({ method, name }) => `${method}: ${name}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});

/**
 * A second name for the stated probability: a field that holds a probability (a number within 0..1, or a list of them)
 * under a name the stated probability once had (`forecast`, `forecasts`, …), not deprecated.
 */
function secondProbabilityNames(fields: readonly Field[]): string[] {
  const isProbability = (s: JsonSchema | undefined): boolean => {
    if (!s) return false;
    const branches = [s, ...((s.anyOf as JsonSchema[] | undefined) ?? [])];
    return branches.some((b) => (b.type === 'number' && b.minimum === 0 && b.maximum === 1) || (b.type === 'array' && isProbability(b.items as JsonSchema)));
  };
  return fields.filter((f) => RETIRED_PROBABILITY_NAMES.has(f.name) && f.schema.deprecated !== true && isProbability(f.schema)).map((f) => f.where);
}

/** Objects with a bin edge (a calibration bin) whose shape is not the one bin shape: BIN_FIELDS all there, no retired name live. */
function otherBinShapes(schemas: ReadonlyArray<{ where: string; schema: unknown }>): string[] {
  const bad: string[] = [];
  const visit = (node: unknown, where: string): void => {
    if (!node || typeof node !== 'object') return;
    const s = node as JsonSchema;
    const props = s.properties as Record<string, JsonSchema> | undefined;
    if (props) {
      const live = Object.keys(props).filter((k) => props[k]!.deprecated !== true);
      const edges = ['binLow', 'binHigh', 'lower', 'upper', 'bucketLow', 'bucketHigh', 'lo', 'hi'];
      if (live.some((k) => edges.includes(k)) && (!BIN_FIELDS.every((k) => live.includes(k)) || live.some((k) => RETIRED_BIN_FIELDS.has(k)))) {
        bad.push(`${where}: {${live.join(', ')}}`);
      }
      for (const [k, v] of Object.entries(props)) visit(v, `${where}.${k}`);
    }
    if (s.items) visit(s.items, `${where}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const b of (s[key] as unknown[] | undefined) ?? []) visit(b, where);
  };
  for (const { where, schema } of schemas) visit(schema, where);
  return bad;
}

describe('one name for the stated probability, one shape for a calibration bin (issue 51 item 3)', () => {
  it('when a method takes or shows the stated probability, then it is probability / probabilities', () => {
    const where = new Set(ALL_FIELDS.map((f) => f.where));
    for (const w of [
      'paper_trade.input:probability',
      'place_order.input:probability',
      'place_orders.input:orders[].probability',
      'buy_community_shares.input:probabilities',
      'submit_forecast.input:probability',
      'submit_forecast.input:probabilities',
      'list_forecasts.output:forecasts[].probability',
    ]) {
      expect([w, where.has(w)]).toEqual([w, true]);
    }
    expect(STATED_PROBABILITY).toEqual({ one: 'probability', perOutcome: 'probabilities' });
  });

  it('when the registry is walked, then no live field gives the stated probability a second name', () => {
    expect(secondProbabilityNames(ALL_FIELDS)).toEqual([]);
  });

  it('when a field holds a probability under an old name, then the check names it (it can fail)', () => {
    const planted: Field[] = [
      { where: 'x.input:forecast', name: 'forecast', schema: { type: 'number', minimum: 0, maximum: 1 } },
      { where: 'x.input:forecasts', name: 'forecasts', schema: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 } } },
      { where: 'x.output:forecast', name: 'forecast', schema: { type: 'object', properties: {} } },
      { where: 'x.output:forecasts', name: 'forecasts', schema: { type: 'integer', minimum: 0 } },
      { where: 'x.input:old', name: 'forecast', schema: { type: 'number', minimum: 0, maximum: 1, deprecated: true } },
    ];
    expect(secondProbabilityNames(planted)).toEqual(['x.input:forecast', 'x.input:forecasts']);
  });

  it('when a method shows calibration bins, then each is the one bin shape (binLow, binHigh, n)', () => {
    const schemas = ALL_METHODS.flatMap((m) => [{ where: `${m.name}.output`, schema: outputSchemaOf(m) }]);
    expect(otherBinShapes(schemas)).toEqual([]);
    // Both bin tables are reached by the walk: the check is not vacuous.
    const bins = ALL_FIELDS.filter((f) => f.name === 'binLow').map((f) => f.where);
    expect(bins).toEqual(
      expect.arrayContaining([
        'get_benchmark_record.output:forecasts.reliabilityTable[].binLow',
        'get_agent_reputation.output:forecasting.calibration[].binLow',
      ]),
    );
  });

  it('when a second bin shape is planted, then the check names it (it can fail)', () => {
    const row = (props: Record<string, JsonSchema>) => ({ type: 'array', items: { type: 'object', properties: props } });
    const n = { type: 'number' };
    expect(
      otherBinShapes([
        { where: 'good', schema: row({ binLow: n, binHigh: n, n, lower: { ...n, deprecated: true } }) },
        { where: 'old', schema: row({ lower: n, upper: n, count: n }) },
        { where: 'mixed', schema: row({ binLow: n, binHigh: n, count: n }) },
      ]),
    ).toEqual(['old[]: {lower, upper, count}', 'mixed[]: {binLow, binHigh, count}']);
  });
});

describe('the web app uses no deprecated field (issue 51 item 3)', () => {
  // The type checker over web/ (as `tsc -p web` sees it) against the generated client types' @deprecated marks.
  it('when web/ is type-checked, then it neither sends nor reads a field the API marks deprecated', () => {
    expect(webDeprecatedUses()).toEqual([]);
  }, 300_000);
});

describe('the web app calls no deprecated method (issue 50 item 2)', () => {
  // Every method the registry marks deprecated (a venue alias) and served on REST: the path web/ would name to call it.
  const ALIASES: AliasPath[] = ALL_METHODS.flatMap((m) => (m.deprecated && m.rest ? [{ name: m.name, path: m.rest.path, use: m.deprecated.use }] : []));
  const pathKey = (p: string) => p.replace(/:[^/]+/g, ':');

  it('when the registry is read, then it has deprecated methods on REST, and no method that stays shares one of their paths', () => {
    expect(ALIASES.map((a) => a.name)).toEqual(expect.arrayContaining(['quote_community_trade', 'buy_community_shares', 'sell_community_shares']));
    // A path names one method, so naming a deprecated method's path is calling it.
    const live = new Set(ALL_METHODS.filter((m) => !m.deprecated && m.rest).map((m) => pathKey(m.rest!.path)));
    expect(ALIASES.filter((a) => live.has(pathKey(a.path))).map((a) => a.path)).toEqual([]);
  });

  it("when web/src is scanned, then it names no deprecated method's REST path (each names the method to use)", () => {
    expect(webDeprecatedCalls(ALIASES)).toEqual([]);
  });

  it("when a source names a deprecated method's path, as the typed client, a fetch or a template, then the scan finds it, and only it", () => {
    const source = [
      "$api.useQuery('post', '/api/user-markets/quote', { body });",
      "$api.useMutation('post', '/api/user-markets/positions/{id}/sell');",
      'fetch(`${base}/api/user-markets/positions/${id}/sell?x=1`);',
      "$api.useQuery('get', '/api/user-markets/{slug}', { params });",
      "$api.useMutation('post', '/api/trade');",
      "$api.useQuery('post', '/api/trade/quote');",
      "const label = { buy_community_shares: 'with a community buy' };",
    ].join('\n');
    const found = deprecatedCallsIn('planted.tsx', source, ALIASES).map((c) => [c.line, c.method, c.use]);
    expect(found).toEqual([
      [1, 'quote_community_trade', 'quote_trade'],
      [2, 'sell_community_shares', 'sell_position'],
      [3, 'sell_community_shares', 'sell_position'],
    ]);
  });
});
