// Lets a child `node -r ./test/support/ts-register.js src/main.ts` run the service from its TypeScript sources
// (the fault tests kill such a process with SIGKILL): each .ts file is transpiled on load, without type checks.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      inlineSourceMap: true,
    },
  });
  module._compile(outputText, filename);
};
