import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { outlineOf, withSharedDefs, withoutDeprecatedProperties, withoutDescriptions, withoutRestatements } from '../../src/documents/schema-compaction';
import { inlineRefs } from '../support/json-schema-refs';

const DATE = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$' };
const ORDER = {
  type: 'object',
  properties: { id: { type: 'string' }, createdAt: DATE, updatedAt: DATE, price: { type: 'number', minimum: 0, maximum: 1 } },
  required: ['id', 'createdAt', 'updatedAt', 'price'],
  additionalProperties: false,
};
const SCHEMA = {
  type: 'object',
  properties: { orders: { type: 'array', items: ORDER }, last: { anyOf: [ORDER, { type: 'null' }] }, at: DATE },
  required: ['orders', 'last', 'at'],
  additionalProperties: false,
};

describe('withoutDescriptions', () => {
  test('when a schema is stripped, then description and title annotations go and a property named description stays', () => {
    const schema = {
      type: 'object',
      description: 'A webhook.',
      properties: {
        description: { type: 'string', description: 'Its label.' },
        title: { anyOf: [{ type: 'string', title: 'x' }, { type: 'null' }], description: 'Its title.' },
      },
      required: ['description', 'title'],
    };
    expect(withoutDescriptions(schema)).toEqual({
      type: 'object',
      properties: { description: { type: 'string' }, title: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['description', 'title'],
    });
  });
});

describe('withSharedDefs', () => {
  test('when a subschema repeats, then it is stated once in $defs, named for its format or first property, and referenced everywhere', () => {
    const compact = withSharedDefs(SCHEMA);
    expect(Object.keys(compact.$defs as object).sort()).toEqual(['DateTime', 'Order']);
    expect(compact.$defs).toMatchObject({ DateTime: DATE, Order: { properties: { createdAt: { $ref: '#/$defs/DateTime' } } } });
    expect(compact.properties).toEqual({
      orders: { type: 'array', items: { $ref: '#/$defs/Order' } },
      last: { anyOf: [{ $ref: '#/$defs/Order' }, { type: 'null' }] },
      at: { $ref: '#/$defs/DateTime' },
    });
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(SCHEMA).length * 0.6);
    // Resolving the references gives back the original, key for key.
    expect(inlineRefs(compact)).toEqual(SCHEMA);
  });

  test('when nothing repeats enough to save bytes, then the schema is unchanged and has no $defs', () => {
    const small = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] };
    expect(withSharedDefs(small)).toEqual(small);
  });

  test('when the schema has $defs of its own, then they are kept, new names do not collide, and values (enum, const, required) are never rewritten', () => {
    const schema = {
      type: 'object',
      properties: { a: DATE, b: DATE, c: { $ref: '#/$defs/DateTime' }, kind: { const: DATE }, tag: { enum: [DATE] } },
      required: ['a'],
      $defs: { DateTime: { type: 'integer' } },
    };
    const compact = withSharedDefs(schema);
    expect(compact.$defs).toEqual({ DateTime: { type: 'integer' }, DateTime2: DATE });
    expect(compact.properties).toMatchObject({
      a: { $ref: '#/$defs/DateTime2' },
      c: { $ref: '#/$defs/DateTime' },
      kind: { const: DATE },
      tag: { enum: [DATE] },
    });
    expect(inlineRefs(compact)).toEqual(inlineRefs(schema));
  });

  test.each([
    ['draft 2020-12 (Ajv2020, the v2 SDK client)', () => new Ajv2020({ strict: false, allErrors: true })],
    ['draft-07 (Ajv, the 1.x SDK client)', () => new Ajv({ strict: false, allErrors: true, validateSchema: false })],
  ])('when %s validates documents, then the compact schema accepts and refuses exactly what the full one does', (_label, make) => {
    const ajv = make();
    addFormats(ajv);
    const full = ajv.compile(SCHEMA);
    const compact = ajv.compile(withSharedDefs(SCHEMA));
    const order = { id: 'o1', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z', price: 0.5 };
    const documents = [
      { orders: [order], last: null, at: '2026-01-01T00:00:00Z' },
      { orders: [], last: order, at: '2026-01-01T00:00:00Z' },
      { orders: [{ ...order, createdAt: 'yesterday' }], last: null, at: '2026-01-01T00:00:00Z' },
      { orders: [{ ...order, extra: 1 }], last: null, at: '2026-01-01T00:00:00Z' },
      { orders: [], last: { ...order, price: 2 }, at: '2026-01-01T00:00:00Z' },
      { orders: [], last: null, at: '2026-02-30' },
      { orders: [], last: null },
    ];
    const verdicts = documents.map((d) => [full(d), compact(d)]);
    expect(verdicts.map(([f, c]) => f === c)).toEqual(documents.map(() => true));
    expect(verdicts.map(([f]) => f)).toEqual([true, true, false, false, false, false, false]);
  });
});

describe('withoutRestatements', () => {
  const LOOSE = {
    type: 'object',
    properties: {
      side: { type: 'string', enum: ['BUY', 'SELL'] },
      basis: { type: 'string', const: 'entry price' },
      mixed: { type: 'string', enum: ['a', 1] },
      at: DATE,
      code: { type: 'string', pattern: '^[A-Z]+$' },
      meta: { type: 'object', properties: {}, propertyNames: { type: 'string' }, additionalProperties: true },
      tags: { type: 'object', propertyNames: { type: 'string', minLength: 2 } },
    },
    required: ['side', 'at'],
    additionalProperties: false,
  };

  test('when a keyword restates another of its schema or a default, then it goes; every other keyword stays', () => {
    expect(withoutRestatements(LOOSE)).toEqual({
      type: 'object',
      properties: {
        side: { enum: ['BUY', 'SELL'] },
        basis: { const: 'entry price' },
        // A type that an enum of mixed values does not restate, a pattern beside no format, closed objects and
        // propertyNames with a constraint are kept.
        mixed: { type: 'string', enum: ['a', 1] },
        at: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^[A-Z]+$' },
        meta: { type: 'object' },
        tags: { type: 'object', propertyNames: { type: 'string', minLength: 2 } },
      },
      required: ['side', 'at'],
      additionalProperties: false,
    });
  });

  test.each([
    ['draft 2020-12 (Ajv2020, the v2 SDK client)', () => new Ajv2020({ strict: false, allErrors: true })],
    ['draft-07 (Ajv, the 1.x SDK client)', () => new Ajv({ strict: false, allErrors: true, validateSchema: false })],
  ])('when %s validates with formats, then the lean schema refuses what the full one refuses, a Z-less offset aside', (_label, make) => {
    const ajv = make();
    addFormats(ajv);
    const full = ajv.compile(LOOSE);
    const lean = ajv.compile(withoutRestatements(LOOSE));
    const ok = { side: 'BUY', basis: 'entry price', at: '2026-01-01T00:00:00Z', code: 'AB', meta: { x: 1 }, tags: { ab: 1 } };
    const documents = [
      ok,
      { ...ok, side: 'HOLD' },
      { ...ok, side: 1 },
      { ...ok, basis: 'mid' },
      { ...ok, at: '2026-02-30T00:00:00Z' },
      { ...ok, at: 'yesterday' },
      { ...ok, code: 'ab' },
      { ...ok, meta: [] },
      { ...ok, tags: { a: 1 } },
      { ...ok, extra: 1 },
    ];
    expect(documents.map((d) => lean(d))).toEqual(documents.map((d) => full(d)));
    expect(documents.map((d) => full(d))).toEqual([true, false, false, false, false, false, false, false, false, false]);
    // The one difference: a date-time with an offset other than Z, which the format admits and zod's pattern does not.
    const offset = { ...ok, at: '2026-01-01T00:00:00+02:00' };
    expect([full(offset), lean(offset)]).toEqual([false, true]);
  });
});

describe('withoutRestatements on a nullable enum', () => {
  test('when an enum or a const is made nullable by anyOf with {type: null}, then it is one enum listing null, annotations kept', () => {
    const schema = {
      type: 'object',
      properties: {
        winner: { anyOf: [{ type: 'string', enum: ['YES', 'NO', 'VOID'] }, { type: 'null' }], description: 'The winner.' },
        basis: { anyOf: [{ type: 'null' }, { const: 'entry price' }] },
        // A branch with more than the enum, or an anyOf with a third branch, is left as it is.
        bounded: { anyOf: [{ type: 'number', enum: [1, 2], minimum: 1 }, { type: 'null' }] },
        three: { anyOf: [{ enum: ['a'] }, { enum: ['b'] }, { type: 'null' }] },
      },
    };
    expect(withoutRestatements(schema).properties).toEqual({
      winner: { enum: ['YES', 'NO', 'VOID', null], description: 'The winner.' },
      basis: { enum: ['entry price', null] },
      bounded: { anyOf: [{ type: 'number', enum: [1, 2], minimum: 1 }, { type: 'null' }] },
      three: { anyOf: [{ enum: ['a'] }, { enum: ['b'] }, { type: 'null' }] },
    });
  });

  test.each([
    ['draft 2020-12 (Ajv2020)', () => new Ajv2020({ strict: false })],
    ['draft-07 (Ajv)', () => new Ajv({ strict: false, validateSchema: false })],
  ])('when %s validates generated values, then the respelt nullable enum accepts exactly what the anyOf accepts', (_label, make) => {
    const ajv = make();
    const scalar = fc.oneof(fc.constantFrom('a', 'b', 'YES', ''), fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.constant(null));
    const branch = fc.oneof(
      fc.uniqueArray(scalar, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
      scalar.map((value) => ({ const: value })),
    );
    const value = fc.oneof(scalar, fc.constant({}), fc.array(scalar, { maxLength: 2 }));
    fc.assert(
      fc.property(branch, fc.boolean(), fc.array(value, { minLength: 1, maxLength: 8 }), (b, nullFirst, values) => {
        const full = { anyOf: nullFirst ? [{ type: 'null' }, b] : [b, { type: 'null' }] };
        const lean = withoutRestatements(full);
        expect(lean).not.toHaveProperty('anyOf');
        const [accepts, acceptsLean] = [ajv.compile(full), ajv.compile(lean)];
        for (const v of [null, ...values]) expect(acceptsLean(v)).toBe(accepts(v));
      }),
      { numRuns: 300 },
    );
  });
});

describe('withoutDeprecatedProperties', () => {
  const OPEN = {
    type: 'object',
    properties: {
      shares: { type: 'number' },
      size: { type: 'number', deprecated: true },
      order: {
        type: 'object',
        properties: { avgPrice: { type: 'number' }, avgFillPrice: { type: 'number', deprecated: true } },
        required: ['avgPrice', 'avgFillPrice'],
      },
    },
    required: ['shares', 'size', 'order'],
  };

  test('when an open schema has deprecated properties, then they leave properties and required, at every depth, and are still accepted as additions', () => {
    const lean = withoutDeprecatedProperties(OPEN);
    expect(lean).toEqual({
      type: 'object',
      properties: { shares: { type: 'number' }, order: { type: 'object', properties: { avgPrice: { type: 'number' } }, required: ['avgPrice'] } },
      required: ['shares', 'order'],
    });
    const validate = new Ajv2020({ strict: false }).compile(lean);
    expect(validate({ shares: 1, size: 1, order: { avgPrice: 0.5, avgFillPrice: 0.5 } })).toBe(true);
    expect(validate({ shares: 1, order: { avgPrice: 0.5 } })).toBe(true);
    expect(validate({ shares: 1, order: {} })).toBe(false);
  });

  test('when the schema is closed, then it is refused: dropping a property there would refuse documents the full schema accepts', () => {
    expect(() => withoutDeprecatedProperties({ ...OPEN, additionalProperties: false })).toThrow(/open schema/);
  });
});

describe('outlineOf', () => {
  const RESULT = {
    type: 'object',
    properties: {
      order: ORDER,
      note: { type: 'string', minLength: 1, maxLength: 20, pattern: '^[a-z]+$' },
      tags: { type: 'array', items: { type: 'string', format: 'uri' }, minItems: 1, uniqueItems: true },
      // A property named like a bound keyword is a field, not a bound: it stays.
      format: { enum: ['json', 'csv'] },
      apiKey: { type: 'string' },
    },
    required: ['order', 'note', 'tags', 'format'],
  };

  test('when a result is outlined, then value bounds and formats go, and `required` goes only where every listed property is required', () => {
    expect(outlineOf(RESULT)).toEqual({
      type: 'object',
      properties: {
        order: {
          type: 'object',
          properties: { id: { type: 'string' }, createdAt: { type: 'string' }, updatedAt: { type: 'string' }, price: { type: 'number' } },
          additionalProperties: false,
        },
        note: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        format: { enum: ['json', 'csv'] },
        apiKey: { type: 'string' },
      },
      // apiKey is optional, so this object still names what it requires.
      required: ['order', 'note', 'tags', 'format'],
    });
    // A schema that was only bounds becomes `true` (any value), never the empty schema `{}`.
    expect(outlineOf({ type: 'object', properties: { n: { minimum: 0 } } })).toEqual({ type: 'object', properties: { n: true } });
  });

  test('when a document passes the full schema, then it passes the outline; the outline refuses a wrong type or enum value still', () => {
    for (const ajv of [new Ajv2020({ strict: false }), new Ajv({ strict: false })]) {
      addFormats(ajv);
      const full = ajv.compile(RESULT);
      const outline = ajv.compile(outlineOf(RESULT));
      const order = { id: 'o1', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', price: 0.5 };
      const ok = { order, note: 'abc', tags: ['https://example.com/a'], format: 'csv' };
      expect([full(ok), outline(ok)]).toEqual([true, true]);
      // What only the bounds refused is accepted now: a price above 1, an empty note, a tag that is no URI, a missing order field.
      const unbounded = { order: { id: 'o1', createdAt: 'soon', price: 2 }, note: '', tags: ['x', 'x'], format: 'csv' };
      expect([full(unbounded), outline(unbounded)]).toEqual([false, true]);
      expect(outline({ ...ok, note: 3 })).toBe(false);
      expect(outline({ ...ok, format: 'xml' })).toBe(false);
      expect(outline({ ...ok, order: { ...order, price: '0.5' } })).toBe(false);
      // The object with an optional field keeps its list: a result without order is refused.
      const { order: _order, ...withoutOrder } = ok;
      expect(outline(withoutOrder)).toBe(false);
    }
  });
});
