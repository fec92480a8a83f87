import { z } from 'zod';
import { AppError } from '../errors/app-error';
import type { AnyMethod } from './method';
import type { CallInfo, VocabularyUse } from './context';
import { DEPRECATED_METHODS, DEPRECATIONS, type Deprecation } from './vocabulary';

/**
 * Where a method's deprecated fields are (issue 51 item 3): a tree of the fields marked `deprecated: true` in its input
 * or output schema, walked over a value to find them (the `Deprecation` / `Sunset` headers of an answer that carries
 * one) or to leave them out (`Prefer: strict-vocabulary`). Read from the method's own schema, so a field deprecated in
 * src/methods is handled here with no second list.
 */
interface Plan {
  /** Deprecated fields at this level. */
  drop: Set<string>;
  /** Fields whose value holds deprecated fields further down. */
  fields: Map<string, Plan>;
  /** The items of an array at this level. */
  items?: Plan;
}

type Json = Record<string, unknown>;

const emptyPlan = (): Plan => ({ drop: new Set(), fields: new Map() });
const isEmpty = (p: Plan): boolean => p.drop.size === 0 && p.fields.size === 0 && !p.items;

/** Merges what `schema` says into `plan` (anyOf / oneOf / allOf branches each add theirs). */
function planInto(plan: Plan, schema: unknown): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  for (const [name, sub] of Object.entries((s.properties as Json | undefined) ?? {})) {
    if ((sub as Json | null)?.deprecated === true) plan.drop.add(name);
    const child = plan.fields.get(name) ?? emptyPlan();
    planInto(child, sub);
    if (!isEmpty(child)) plan.fields.set(name, child);
  }
  if (s.items) {
    const items = plan.items ?? emptyPlan();
    planInto(items, s.items);
    if (!isEmpty(items)) plan.items = items;
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const branch of (s[key] as unknown[] | undefined) ?? []) planInto(plan, branch);
}

const plans = { input: new WeakMap<object, Plan | null>(), output: new WeakMap<object, Plan | null>() };

/** The deprecated fields of a method's input or output (null: none), computed once per method. */
export function deprecationPlan(method: AnyMethod, io: 'input' | 'output'): Plan | null {
  const cache = plans[io];
  let plan = cache.get(method);
  if (plan === undefined) {
    const built = emptyPlan();
    planInto(built, z.toJSONSchema(io === 'input' ? method.input : method.output, { io, unrepresentable: 'any' }));
    plan = isEmpty(built) ? null : built;
    cache.set(method, plan);
  }
  return plan;
}

/** The names of the deprecated fields `value` holds, by `plan`, each once (`skip`: top-level names not to count). */
export function deprecatedIn(value: unknown, plan: Plan, skip: ReadonlySet<string> = new Set(), found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    if (plan.items) for (const v of value) deprecatedIn(v, plan.items, undefined, found);
    return found;
  }
  if (!value || typeof value !== 'object') return found;
  const obj = value as Json;
  for (const name of plan.drop) if (obj[name] !== undefined && !skip.has(name)) found.add(name);
  for (const [name, child] of plan.fields) if (obj[name] !== undefined) deprecatedIn(obj[name], child, undefined, found);
  return found;
}

/** `value` without the fields `plan` marks deprecated (a copy where something goes; the rest shared, unchanged). */
export function withoutDeprecated(value: unknown, plan: Plan): unknown {
  if (Array.isArray(value)) return plan.items ? value.map((v) => withoutDeprecated(v, plan.items!)) : value;
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [name, v] of Object.entries(value as Json)) {
    if (plan.drop.has(name)) continue;
    const child = plan.fields.get(name);
    out[name] = child ? withoutDeprecated(v, child) : v;
  }
  return out;
}

/** The earliest announcement and the earliest sunset of the named deprecated fields. */
export function datesOf(names: Iterable<string>): Deprecation | undefined {
  let since: string | undefined;
  let sunset: string | undefined;
  for (const name of names) {
    const d = DEPRECATIONS[name];
    if (!d) continue;
    if (since === undefined || d.since < since) since = d.since;
    if (sunset === undefined || d.sunset < sunset) sunset = d.sunset;
  }
  return since && sunset ? { since, sunset } : undefined;
}

/** A REST path's parameters (`/api/markets/:idOrSlug`): how REST names a resource, never a deprecated use. */
function pathParams(method: AnyMethod, call: CallInfo): ReadonlySet<string> {
  if (call.transport !== 'rest' || !method.rest) return new Set();
  return new Set((method.rest.path.match(/:\w+/g) ?? []).map((p) => p.slice(1)));
}

/** Records a deprecated use on the request's vocabulary holder: the headers name its earliest dates. */
function note(use: VocabularyUse, names: Iterable<string>): void {
  const dates = datesOf(names);
  if (dates) noteDates(use, dates);
}

/** A call of a deprecated method (a venue alias): its answer carries the method's Deprecation and Sunset headers. */
export function noteDeprecatedMethod(method: AnyMethod, call: CallInfo): void {
  const dates = method.deprecated ? DEPRECATED_METHODS[method.name] : undefined;
  if (!call.vocabulary || !dates) return;
  call.vocabulary.method = dates;
  noteDates(call.vocabulary, dates);
}

function noteDates(use: VocabularyUse, dates: Deprecation): void {
  const held = use.deprecation;
  use.deprecation = held
    ? { since: held.since < dates.since ? held.since : dates.since, sunset: held.sunset < dates.sunset ? held.sunset : dates.sunset }
    : dates;
}

/**
 * Before the handler: in strict mode a deprecated input field is refused (the future, today); otherwise its use is
 * noted for the answer's headers.
 */
export function checkDeprecatedInput(method: AnyMethod, input: unknown, call: CallInfo): void {
  const use = call.vocabulary;
  const plan = use && deprecationPlan(method, 'input');
  if (!use || !plan) return;
  const sent = deprecatedIn(input, plan, pathParams(method, call));
  if (sent.size === 0) return;
  if (use.strict) {
    const names = [...sent];
    throw new AppError('VALIDATION_ERROR', `Deprecated field${names.length > 1 ? 's' : ''} ${names.join(', ')}: refused under Prefer: strict-vocabulary.`, {
      hint: 'Send the glossary name each deprecated field names in its description (docs/glossary.md, "Deprecated aliases").',
      details: names.map((n) => ({ path: n, message: `${n} is deprecated (sunset ${DEPRECATIONS[n]?.sunset ?? 'announced'})`, code: 'deprecated' })),
    });
  }
  note(use, sent);
}

/** After the handler: in strict mode the answer without its deprecated fields; otherwise the answer, its use noted. */
export function answerVocabulary(method: AnyMethod, result: unknown, call: CallInfo): unknown {
  const use = call.vocabulary;
  const plan = use && deprecationPlan(method, 'output');
  if (!use || !plan) return result;
  if (use.strict) return withoutDeprecated(result, plan);
  note(use, deprecatedIn(result, plan));
  return result;
}
