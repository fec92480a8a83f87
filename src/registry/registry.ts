import type { AnyMethod } from './method';

declare module './method-services' {
  interface MethodServices {
    /** The methods of this process (the agent card and the transports walk it). */
    registry: Registry;
  }
}

/** The list of methods, checked once at start: unique names, unique REST routes, path params in the input. */
export class Registry {
  private readonly byName = new Map<string, AnyMethod>();

  constructor(readonly methods: readonly AnyMethod[]) {
    const problems: string[] = [];
    const routes = new Set<string>();
    for (const m of methods) {
      if (this.byName.has(m.name)) problems.push(`duplicate method name ${m.name}`);
      this.byName.set(m.name, m);
      if (!m.rest) continue;
      const route = `${m.rest.method} ${m.rest.path.replace(/:\w+/g, ':')}`;
      if (routes.has(route)) problems.push(`duplicate REST route ${m.rest.method} ${m.rest.path} (${m.name})`);
      routes.add(route);
      for (const param of m.rest.path.match(/:(\w+)/g) ?? []) {
        if (!(param.slice(1) in m.input.shape)) problems.push(`${m.name}: path param ${param} is not in its input schema`);
      }
    }
    // Collect every problem before failing, so one start shows them all.
    if (problems.length) throw new Error(`Invalid method registry:\n- ${problems.join('\n- ')}`);
  }

  get(name: string): AnyMethod | undefined {
    return this.byName.get(name);
  }
}
