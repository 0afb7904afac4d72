// ESLint for the web app: `npm run lint`, no warnings allowed, run by scripts/test.sh.
//
// typescript-eslint's recommended rules, React's two rules of hooks, and the module boundaries
// of the app's layout (eslint-plugin-boundaries, which resolves every import, relative or through
// the `@/` alias, to the file it names, so no spelling of a path gets around it):
//   - a feature (src/features/X) imports its own modules and shared code, never another feature;
//   - src/app is the only place that imports features (main.tsx starts app, nothing more);
//   - shared code (src/components, lib, stores, types, testing, styles) imports only shared code.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const SHARED = ['components', 'lib', 'stores', 'types', 'testing', 'styles'];

export default defineConfig(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    // The plugin's classic recommended pair, at its severities (a warning fails the lint too).
    // Its React Compiler rules, which the plugin's recommended set now also turns on, are not
    // part of this: the app does not use the compiler.
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    files: ['*.{js,ts}', 'scripts/**/*.{js,mjs,ts}'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      // Resolves the `@/` alias as tsconfig.json (and vite.config.ts) define it.
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      // Static imports, re-exports, the lazy screens' `import()`, and the modules a test mocks.
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'boundaries/additional-dependency-nodes': [
        {
          selector: 'CallExpression[callee.object.name=vi][callee.property.name=/^(mock|doMock|importActual)$/] > Literal:first-child',
          kind: 'value',
          name: 'vi-mock',
        },
      ],
      // First match wins: `src` last, for the files at its top (main.tsx and the ambient
      // declarations of the `virtual:locales` module).
      'boundaries/elements': [
        { type: 'app', pattern: 'src/app', partialMatch: false },
        { type: 'feature', pattern: 'src/features/*', partialMatch: false, capture: ['feature'] },
        ...SHARED.map((dir) => ({ type: 'shared', pattern: `src/${dir}`, partialMatch: false })),
        { type: 'main', pattern: 'src', partialMatch: false },
      ],
    },
    rules: {
      // Every file under src, and every local file it imports, belongs to one of the elements
      // above: a new folder takes its place in the layout before it is used.
      'boundaries/no-unknown-files': 'error',
      'boundaries/no-unknown-dependencies': 'error',
      // Imports within one element (a feature's own modules, app's own) are not boundaries;
      // packages are not checked here.
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkUnknownLocals: true,
          message:
            '{{ from.element.type }} code may not import {{ to.element.type }} code ({{ dependency.source }}): ' +
            'a feature imports only itself and shared code, only src/app imports features, and shared code ' +
            '(src/components, lib, stores, types, testing) imports only shared code. Move what two features ' +
            'share into src/components or src/lib, or compose them in src/app.',
          policies: [
            { from: { element: { type: 'main' } }, allow: { to: { element: { types: { anyOf: ['app', 'shared'] } } } } },
            { from: { element: { type: 'app' } }, allow: { to: { element: { types: { anyOf: ['feature', 'shared'] } } } } },
            { from: { element: { type: 'feature' } }, allow: { to: { element: { type: 'shared' } } } },
            { from: { element: { type: 'shared' } }, allow: { to: { element: { type: 'shared' } } } },
          ],
        },
      ],
    },
  },
);
