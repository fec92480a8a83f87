// Module resolution hook (see node20.mjs): the conformance CLI's `fs` is node:fs plus a globSync that refuses.
const FS_WITH_GLOB_SYNC =
  'data:text/javascript,' +
  encodeURIComponent("export * from 'node:fs'; export function globSync() { throw new Error('fs.globSync needs Node 22 (conformance tier-check only)'); }");

export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL?.includes('/@modelcontextprotocol/conformance/') ?? false;
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs')) return { url: FS_WITH_GLOB_SYNC, shortCircuit: true };
  return next(specifier, context);
}
