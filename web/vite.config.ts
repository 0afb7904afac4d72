/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

import { localeSections } from './scripts/locale-sections.ts';

const src = fileURLToPath(new URL('./src', import.meta.url));
const locales = fileURLToPath(new URL('../locales', import.meta.url));

// Lazy screens get the spec's chunk names (Register, StockList, TradeDetail, ...): a route
// module `src/app/routes/stock-list.tsx` becomes `StockList-<hash>.js`.
function pascal(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, _dash, c: string) => c.toUpperCase());
}

// React Router resolves to its development build for every bundler; the production build is
// the same code with its development warnings off, which the minifier then drops (about 1 KiB
// gzipped off every route). Tests keep the warnings.
const reactRouterProduction = fileURLToPath(new URL('./node_modules/react-router/dist/production/index.mjs', import.meta.url));

// react-i18next imports `use-sync-external-store/shim`, a copy of React's hook for React
// before 18 that hands over to React's own when there is one, as React 19 always has: the
// production build takes React's directly (0.3 KiB gzipped off every route).
const useSyncExternalStore = fileURLToPath(new URL('./src/lib/use-sync-external-store.ts', import.meta.url));

// The entry: the HTML page, the module it loads (main.tsx) and that module's style sheets,
// kept out of the `start` chunk (the styles stay the entry's, so lazy chunks do not list them).
const ENTRY = /(\/index\.html|\/src\/main\.tsx|\.css)$/;

export default defineConfig(({ mode }) => ({
  plugins: [localeSections(locales)],
  resolve: {
    alias: [
      { find: '@', replacement: src },
      { find: '@locales', replacement: locales },
      ...(mode === 'production'
        ? [
            { find: /^react-router$/, replacement: reactRouterProduction },
            { find: /^use-sync-external-store\/shim$/, replacement: useSyncExternalStore },
          ]
        : []),
    ],
  },
  server: {
    // `npm run dev` talks to a local trading-server (cargo run --release -p gateway).
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/ws': { target: 'ws://127.0.0.1:8080', ws: true },
    },
    fs: { allow: ['..'] },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    manifest: true,
    rollupOptions: {
      output: {
        // What every page loads before it renders (all that the entry imports, directly or not:
        // React, react-dom, React Router, i18next, the HTTP client and the trader's instance of
        // it, the stores, the router and the root layout) is one chunk, `start`; only main.tsx,
        // which starts the app, stays in the entry. Left to itself the bundler cuts the start
        // modules that lazy screens also import into chunks by which screens import them (the
        // guards, the toast, device and site stores and the icons each alone, react-dom,
        // react-i18next's hooks, React Router, ...): eleven files where three do (the entry, the
        // bundler's runtime, `start`), each with its own imports and exports, and gzip shares
        // nothing across files. One chunk took 3.3 KiB gzipped and 8 requests off every route
        // (login from 130.4 KiB, over its budget after the device tokens, to 127.1). It keeps
        // the one HTTP client and the trader's instance of it together, as they were before the
        // back-office (which uses only the client) split them.
        // The one websocket client and the trader's instance stay one chunk too: the
        // back-office's own instance (lib/admin-ws.ts) would otherwise split the client off into
        // a chunk of its own, one more request on every trader's page.
        codeSplitting: {
          groups: [
            { name: 'start', tags: ['$initial'], test: (id: string) => !ENTRY.test(id) },
            { name: 'ws', test: /\/src\/lib\/(ws|ws-client)\.ts$/ },
          ],
        },
        chunkFileNames(chunk) {
          const id = chunk.facadeModuleId ?? '';
          const route = /\/src\/app\/routes\/([a-z-]+)\.tsx$/.exec(id);
          if (route?.[1]) return `assets/${pascal(route[1])}-[hash].js`;
          const texts = /virtual:locale\/([A-Za-z-]+)\/([a-z]+)$/.exec(id);
          if (texts) return `assets/texts-${texts[1]}-${texts[2]}-[hash].js`;
          return 'assets/[name]-[hash].js';
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/testing/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
}));
