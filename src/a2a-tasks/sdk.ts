/**
 * The parts of @a2a-js/sdk that load `jose` (ESM-only) are reached through import(), once per process: a CommonJS
 * require of them fails under jest's module loader. Types come from the package's own declarations.
 */
export interface A2aSdk {
  core: typeof import('@a2a-js/sdk');
  server: typeof import('@a2a-js/sdk/server');
  legacyServer: typeof import('@a2a-js/sdk/compat/v0_3/server');
}

let loading: Promise<A2aSdk> | undefined;

export function loadA2aSdk(): Promise<A2aSdk> {
  loading ??= Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/server'), import('@a2a-js/sdk/compat/v0_3/server')]).then(
    ([core, server, legacyServer]) => ({ core, server, legacyServer }),
  );
  return loading;
}
