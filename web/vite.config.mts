import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The browser app: built into dist/web (hashed files under assets/, the manifest under .vite/) and served
 * by the service itself (src/http/pages/web-app.ts). No React plugin: Vite's own transformer compiles JSX, and
 * fast refresh is not worth a Babel toolchain here.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    reportCompressedSize: false,
    rolldownOptions: {
      // Libraries' "use client" lines mean nothing without server components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
