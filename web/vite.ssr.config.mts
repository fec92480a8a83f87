import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The app's first views for the service to render in Node (web/src/entry-server.tsx): one CommonJS file at
 * dist/web/ssr/entry-server.js, with React and every other library bundled in (the service requires it as it is,
 * under ts-jest too), built after the browser app (whose build empties dist/web). React's production build, whatever
 * NODE_ENV the service later runs with.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic' } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  ssr: { noExternal: true },
  build: {
    ssr: 'src/entry-server.tsx',
    outDir: fileURLToPath(new URL('../dist/web/ssr', import.meta.url)),
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    reportCompressedSize: false,
    rolldownOptions: {
      output: { format: 'cjs', entryFileNames: 'entry-server.js', codeSplitting: false },
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
