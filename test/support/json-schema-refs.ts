/**
 * Test helpers over JSON Schemas: resolving local `#/$defs/...` references (to compare a compacted schema with the
 * full one), and making a document a schema accepts (to compare what two schemas accept).
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema with every local `$ref` replaced by the definition it names, and no root `$defs`. */
export function inlineRefs(root: Json): Json {
  const defs = (root.$defs ?? {}) as Json;
  const inline = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('recursive $ref');
    if (Array.isArray(node)) return node.map((n) => inline(n, depth));
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
      const { $ref, ...siblings } = node;
      const target = defs[$ref.slice('#/$defs/'.length)];
      if (target === undefined) throw new Error(`unresolved ${$ref}`);
      return { ...(inline(target, depth + 1) as Json), ...(inline(siblings, depth) as Json) };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, depth)]));
  };
  const { $defs: _defs, ...rest } = root;
  return inline(rest, 0) as Json;
}

const STRINGS: Record<string, string> = {
  'date-time': '2026-01-02T03:04:05.678Z',
  uri: 'https://example.com/a',
  email: 'agent@example.com',
  '^svc_[0-9a-f]{32}$': `svc_${'0'.repeat(32)}`,
  '^[0-9a-f]{64}$': '0'.repeat(64),
};

/**
 * A document the schema describes, every optional property present: `nulls` takes the null branch of each nullable,
 * otherwise the first other branch. Only local references are followed; a format or pattern it does not know gets
 * "x" (a test checks the full schema accepts what it made).
 */
export function sampleOf(root: Json, nulls = false): unknown {
  const schema = inlineRefs(root);
  const make = (s: Json): unknown => {
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) return s.enum[0];
    const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
    if (branches) {
      const chosen = (nulls && branches.find((b) => b.type === 'null')) || branches.find((b) => b.type !== 'null') || branches[0]!;
      return make({ ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'anyOf' && k !== 'oneOf')), ...chosen });
    }
    switch (s.type) {
      case 'null':
        return null;
      case 'boolean':
        return true;
      case 'integer':
      case 'number':
        return typeof s.minimum === 'number' ? s.minimum : typeof s.maximum === 'number' ? Math.min(0, s.maximum) : s.type === 'integer' ? 3 : 0.25;
      case 'string': {
        const known = STRINGS[(s.format ?? s.pattern) as string] ?? (s.format ? STRINGS[s.format as string] : undefined);
        return known ?? 'x'.repeat(Math.max(1, (s.minLength as number | undefined) ?? 1));
      }
      case 'array':
        return Array.from({ length: Math.max(1, (s.minItems as number | undefined) ?? 1) }, () => make((s.items ?? {}) as Json));
      default: {
        const out: Json = {};
        for (const [name, p] of Object.entries((s.properties ?? {}) as Json)) out[name] = make(p as Json);
        if (!s.properties && isObject(s.additionalProperties)) {
          const names = (s.propertyNames as Json | undefined)?.enum as string[] | undefined;
          out[names?.[0] ?? 'k'] = make(s.additionalProperties);
        }
        return out;
      }
    }
  };
  return make(schema);
}

/**
 * The document and variations of it at every depth: each object with an unknown key, each key removed, each value
 * replaced by values of other types. What a schema accepts of these shows what it checks. A large document (a
 * benchmark record) has thousands: about `max` of them are kept, spread evenly over the document.
 */
export function variationsOf(document: unknown, max = 400): unknown[] {
  const WRONG: unknown[] = [null, 'x', -1, 1.5, {}];
  const walk = (emit: (rebuild: () => unknown) => void) => {
    const visit = (value: unknown, rebuild: (v: unknown) => unknown) => {
      for (const w of WRONG) emit(() => rebuild(w));
      if (Array.isArray(value)) {
        value.forEach((item, i) => visit(item, (v) => rebuild(value.map((x, j) => (j === i ? v : x)))));
      } else if (isObject(value)) {
        emit(() => rebuild({ ...value, unexpectedField: 1 }));
        for (const key of Object.keys(value)) {
          emit(() => {
            const { [key]: _removed, ...rest } = value;
            return rebuild(rest);
          });
          visit(value[key], (v) => rebuild({ ...value, [key]: v }));
        }
      }
    };
    visit(document, (v) => v);
  };
  let total = 0;
  walk(() => (total += 1));
  const stride = Math.max(1, Math.ceil(total / max));
  const out: unknown[] = [document];
  let i = 0;
  walk((rebuild) => {
    if (i++ % stride === 0) out.push(rebuild());
  });
  return out;
}
