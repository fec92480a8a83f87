import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The server's layers (src/), top to bottom; a file imports its own layer or one below, never one above:
//   entry (main.ts, start.ts) → http (incl. http/pages/) → services.ts → transports + documents → registry + methods
//   → market-data → domain → auth → limits → db → base (errors, config, logger, clock).
// Checked with no import cycle (type-only imports included) by scripts/check-imports.js, which `npm run lint`
// runs after eslint; the table and its reasons live there.

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'schemas/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-require-imports': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  // The web app's layers (bulletproof-react): app -> features -> shared (components, lib). Feature folders are
  // flat, so "../x" from a feature can only reach another feature.
  {
    files: ['web/src/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./(?!\\.\\./)', message: 'A feature never imports another feature: move what both need to web/src/components or web/src/lib.' },
            { regex: '/app/', message: 'Features never import the app layer (web/src/app).' },
          ],
        },
      ],
    },
  },
  {
    files: ['web/src/components/**/*.{ts,tsx}', 'web/src/lib/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '/(features|app)/', message: 'Shared code never imports features or the app.' }] }],
    },
  },
);
