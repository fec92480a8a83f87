import { TOOL_NAME, toolNameOf, type AnyMethod } from './method';
import { ALWAYS_SELECTED, listItemOf, selectableNames } from './fields';
import { isListMethod, maxPageOf } from './pages';
import type { AnyStream } from './stream';

declare module './method-services' {
  interface MethodServices {
    /** The methods of this process (the agent card and the transports walk it). */
    registry: Registry;
  }
}

/**
 * The list of methods and streams, checked once at start: unique names, unique REST routes, path params in the input.
 */
export class Registry {
  private readonly byName = new Map<string, AnyMethod>();

  constructor(
    readonly methods: readonly AnyMethod[],
    /** Server-Sent Event streams (src/registry/stream.ts): GET routes of the SSE transport, never RPC methods. */
    readonly streams: readonly AnyStream[] = [],
  ) {
    const problems: string[] = [];
    const routes = new Set<string>();
    const names = new Set<string>();
    const tools = new Set<string>();
    for (const m of methods) {
      if (this.byName.has(m.name)) problems.push(`duplicate method name ${m.name}`);
      const tool = toolNameOf(m);
      if (!TOOL_NAME.test(tool)) problems.push(`${m.name}: its tool name ${tool} is not 1 to 64 of a-z, A-Z, 0-9, _ and -`);
      if (tools.has(tool)) problems.push(`duplicate tool name ${tool} (${m.name})`);
      tools.add(tool);
      this.byName.set(m.name, m);
      names.add(m.name);
      if (m.selectsFields) problems.push(...fieldSelectionProblems(m, m.selectsFields));
      if (isListMethod(m) && maxPageOf(m) === undefined) problems.push(`${m.name}: a list method states its maximum page as the maximum of its limit input`);
      if (!m.rest) continue;
      const route = `${m.rest.method} ${m.rest.path.replace(/:\w+/g, ':')}`;
      if (routes.has(route)) problems.push(`duplicate REST route ${m.rest.method} ${m.rest.path} (${m.name})`);
      routes.add(route);
      for (const param of m.rest.path.match(/:(\w+)/g) ?? []) {
        if (!(param.slice(1) in m.input.shape)) problems.push(`${m.name}: path param ${param} is not in its input schema`);
      }
    }
    for (const s of streams) {
      if (names.has(s.name)) problems.push(`duplicate name ${s.name} (a stream)`);
      names.add(s.name);
      const route = `GET ${s.path.replace(/:\w+/g, ':')}`;
      if (routes.has(route)) problems.push(`duplicate REST route GET ${s.path} (${s.name})`);
      routes.add(route);
      if (/:\w+/.test(s.path)) problems.push(`${s.name}: a stream takes no path params`);
      if (s.resumable && !('lastEventId' in s.input.shape)) problems.push(`${s.name}: a resumable stream needs lastEventId in its input`);
    }
    // Collect every problem before failing, so one start shows them all.
    if (problems.length) throw new Error(`Invalid method registry:\n- ${problems.join('\n- ')}`);
  }

  get(name: string): AnyMethod | undefined {
    return this.byName.get(name);
  }
}

/** A field selection needs a list of objects with an id, and a `fields` input naming exactly their fields. */
function fieldSelectionProblems(m: AnyMethod, list: string): string[] {
  const item = listItemOf(m, list);
  if (!item) return [`${m.name}: selectsFields ${list} is not an output list of objects`];
  if (!(ALWAYS_SELECTED in item.shape)) return [`${m.name}: the items of ${list} have no ${ALWAYS_SELECTED}`];
  const fields = m.input.shape.fields as { unwrap?: () => { element?: { options?: readonly string[] } } } | undefined;
  const named = fields?.unwrap?.().element?.options;
  const expected = selectableNames(item);
  if (!named || named.join() !== expected.join()) return [`${m.name}: its input's fields must be fieldsInput of the items of ${list}`];
  return [];
}
