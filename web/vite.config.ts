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

export default defineConfig(({ mode }) => ({
  plugins: [localeSections(locales)],
  resolve: {
    alias: [
      { find: '@', replacement: src },
      { find: '@locales', replacement: locales },
      ...(mode === 'production' ? [{ find: /^react-router$/, replacement: reactRouterProduction }] : []),
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
        // The one HTTP client and the trader's instance of it stay one chunk, as they were
        // before the back-office (which uses only the client) split them: one request less
        // and 0.3 KiB less on the login route.
        // Likewise the one websocket client and the trader's instance: the back-office's own
        // instance (lib/admin-ws.ts) would otherwise split the client off into a chunk of its
        // own, one more request on every trader's page.
        codeSplitting: {
          groups: [
            { name: 'api', test: /\/src\/lib\/(api|api-client)\.ts$/ },
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
