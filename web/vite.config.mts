import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = fileURLToPath(new URL('../dist/web', import.meta.url));

/** Text assets worth compressing; images and fonts are compressed formats already. */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|wasm)$/;

/**
 * Writes a brotli (.br, quality 11) and a gzip (.gz, level 9) copy beside each text asset of the build, once,
 * so the service sends the encoding the browser asks for (src/http/pages/precompressed-assets.ts) without
 * compressing on every request. A copy that would not be smaller is not written.
 */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const assets = path.join(OUT_DIR, 'assets');
      if (!fs.existsSync(assets)) return;
      for (const name of fs.readdirSync(assets)) {
        if (!COMPRESSIBLE.test(name)) continue;
        const file = path.join(assets, name);
        const bytes = fs.readFileSync(file);
        const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
        const gz = gzipSync(bytes, { level: 9 });
        if (br.length < bytes.length) fs.writeFileSync(`${file}.br`, br);
        if (gz.length < bytes.length) fs.writeFileSync(`${file}.gz`, gz);
      }
    },
  };
}

/**
 * The browser app: built into dist/web (hashed files under assets/, each text asset with .br and .gz copies, the
 * manifest under .vite/) and served by the service itself (src/http/pages/web-app.ts). No React plugin: Vite's own
 * transformer compiles JSX, and fast refresh is not worth a Babel toolchain here.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [precompress()],
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    reportCompressedSize: false,
    rolldownOptions: {
      // The app (index.html's entry, main.tsx), and the script a page with the service's first view starts it from.
      input: { index: fileURLToPath(new URL('index.html', import.meta.url)), boot: fileURLToPath(new URL('src/boot.ts', import.meta.url)) },
      // Libraries' "use client" lines mean nothing without server components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
