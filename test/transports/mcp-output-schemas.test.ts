import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildRegistry } from '../../src/methods';
import { onSurface } from '../../src/registry/method';
import { outputSchemaOf, toJsonSchema, type JsonSchema } from '../../src/documents/json-schema';
import { withRepeatsOutlined, withoutDescriptions, withoutRestatements } from '../../src/documents/schema-compaction';
import { ErrorBodySchema } from '../../src/errors/error-body';
import { compactError, mcpOutputSchema, mcpResultSchema } from '../../src/transports/mcp-tools';
import { inlineRefs, sampleOf, variationsOf } from '../support/json-schema-refs';

/**
 * tools/list sends each output schema compacted (no descriptions, no `$ref`: a repeated part is spelled once and by its
 * type after). MCP clients validate structuredContent against it, so it must accept every document the full schema
 * accepts, and refuse exactly what the full schema with its repeats outlined refuses: checked here for every tool,
 * structurally and by validating samples and their variations with both SDK generations' validators.
 * "Full" is the method's schema open to additions and without deprecated fields (mcpResultSchema): a result may gain
 * fields in a later version, and a deprecated one is one of those.
 */
const methods = buildRegistry().methods.filter((m) => onSurface(m, 'mcp'));
const errorBranch = compactError(toJsonSchema(ErrorBodySchema, 'output'));

/** The output schema as tools/list sent it before compaction: the method's full schema or the error body. */
function fullSchemaOf(m: (typeof methods)[number]): JsonSchema {
  const { $defs, type: _object, ...success } = mcpResultSchema(outputSchemaOf(m));
  return { type: 'object', anyOf: [success, errorBranch], ...($defs ? { $defs } : {}) };
}

const ERROR_BODIES = [
  { error: 'Bad input.', code: 'VALIDATION_ERROR', hint: 'Fix it.', details: [{ path: 'amount', message: 'Too small', code: 'too_small' }] },
  { error: 'Slow down.', code: 'RATE_LIMITED', retryAfterSeconds: 3, docs: 'https://example.com/llms-full.txt' },
  { error: 'Server error.', code: 'INTERNAL_ERROR', requestId: 'req-1' },
];

/** The validators of the v2 SDK client (Ajv2020) and of the 1.x client (draft-07 Ajv, formats on). */
const VALIDATORS: Array<[string, () => Ajv]> = [
  ['Ajv2020 (v2 SDK client)', () => new Ajv2020({ strict: false })],
  ['draft-07 Ajv (1.x SDK client)', () => new Ajv({ strict: false, validateFormats: true, validateSchema: false })],
];

describe('MCP output schemas in tools/list', () => {
  test.each(methods.map((m) => [m.name, m] as const))(
    '%s: the compact schema is the full one without restated keywords, its repeats outlined (and an error branch it does not need)',
    (_name, m) => {
      const compact = mcpOutputSchema(m);
      const full = inlineRefs(withoutRestatements(fullSchemaOf(m))) as { anyOf: JsonSchema[] };
      // Without an error branch where the result's schema alone admits every error body (the samples below show it).
      expect(compact).toEqual(withRepeatsOutlined('anyOf' in compact ? full : { type: 'object', ...full.anyOf[0] }));
    },
  );

  test.each(VALIDATORS)('when %s validates every tool’s samples and their variations, then the compact and full schemas agree on each', (_label, make) => {
    const ajv = make();
    addFormats(ajv);
    const disagreements: string[] = [];
    let checked = 0;
    let accepted = 0;
    for (const m of methods) {
      const full: ValidateFunction = ajv.compile(fullSchemaOf(m));
      const compact: ValidateFunction = ajv.compile(mcpOutputSchema(m));
      const outlined: ValidateFunction = ajv.compile(withRepeatsOutlined(withoutRestatements(fullSchemaOf(m))));
      const samples = [...(m.examples ?? []).map((e) => e.output), sampleOf(outputSchemaOf(m)), sampleOf(outputSchemaOf(m), true), ...ERROR_BODIES];
      // The samples are documents the full schema accepts, so the variations probe what it checks.
      for (const sample of samples) {
        if (!full(sample)) disagreements.push(`${m.name}: a sample the full schema refuses: ${JSON.stringify(sample).slice(0, 200)}`);
      }
      for (const document of samples.flatMap((sample) => variationsOf(sample))) {
        const verdict = full(document);
        checked += 1;
        if (verdict) accepted += 1;
        const said = compact(document);
        // Never less than the full schema; more only inside an outlined repeat.
        if (verdict && !said) disagreements.push(`${m.name}: the full schema accepts, compact refuses: ${JSON.stringify(document).slice(0, 200)}`);
        if (said !== outlined(document)) disagreements.push(`${m.name}: outlined ${!said}, compact ${said}: ${JSON.stringify(document).slice(0, 200)}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Both verdicts are exercised: many variations are refused, and some are accepted (a variation that drops a field is
    // accepted where its object does not list what it requires, so fewer than half are refused: 46 %).
    expect(checked).toBeGreaterThan(10_000);
    expect(accepted).toBeGreaterThan(methods.length * 2);
    expect(checked - accepted).toBeGreaterThan(checked / 3);
  });

  test('when a result gains a field a later version adds, then the open schema still accepts it; a mistyped field is still refused, a missing one where its object lists what it requires', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const m = methods.find((x) => x.name === 'get_balance')!;
    const validate = ajv.compile(mcpOutputSchema(m));
    const sample = m.examples![0]!.output as Record<string, unknown>;
    expect(validate(sample)).toBe(true);
    expect(validate({ ...sample, addedLater: 1 })).toBe(true);
    const [first] = Object.keys(sample);
    const { [first!]: _dropped, ...missing } = sample;
    // Every field of get_balance is required, which the instructions say once instead of a `required` list here.
    expect(mcpOutputSchema(m)).not.toHaveProperty('required');
    expect(validate(missing)).toBe(true);
    expect(validate({ ...sample, [first!]: 'not a number' })).toBe(false);
    // get_market_odds has optional fields (yesPrice, noPrice), so it keeps its list and refuses a result without a required one.
    const odds = methods.find((x) => x.name === 'get_market_odds')!;
    const validateOdds = ajv.compile(mcpOutputSchema(odds));
    const market = odds.examples![0]!.output as Record<string, unknown>;
    expect(validateOdds(market)).toBe(true);
    const { question: _question, ...noQuestion } = market;
    expect(validateOdds(noQuestion)).toBe(false);
    // A deprecated field (sent under both names for a version) is not in the compact schema, and is accepted as an addition.
    const placeOrder = methods.find((x) => x.name === 'place_order')!;
    const order = (placeOrder.examples![0]!.output as { order: Record<string, unknown> }).order;
    expect(order).toHaveProperty('avgFillPrice');
    expect(JSON.stringify(mcpOutputSchema(placeOrder))).not.toContain('avgFillPrice');
    const validateOrder = ajv.compile(mcpOutputSchema(placeOrder));
    expect(validateOrder({ order })).toBe(true);
    const { avgFillPrice: _old, size: _size, filledSize: _filled, ...current } = order;
    expect(validateOrder({ order: current })).toBe(true);
    expect(validateOrder({ order: { ...current, avgPrice: 'x' } })).toBe(false);
    // The closed full schema (as /openapi.json has it) refuses the added field: the difference is only openness.
    expect(ajv.compile(withoutDescriptions(outputSchemaOf(m)))({ ...sample, addedLater: 1 })).toBe(false);
  });
});
