// The initial JavaScript of each route, gzipped, from the build's manifest: the entry and
// everything it imports, the route's chunk and its imports, and the text sections loaded
// before the screen renders (in en-US). Fails when a route is over its budget
// (BENCHMARKS.md: trade <= 220 KiB, login <= 130 KiB).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, 'utf8'));

// Route -> [route module, text sections]; mirrors src/app/router.tsx.
const START = ['common', 'auth'];
const SHELL = { module: 'src/app/layouts/user-layout.tsx', sections: ['notifications'] };
const ROUTES = {
  login: { module: 'src/app/routes/login.tsx', sections: [], shell: false, budgetKiB: 130 },
  register: { module: 'src/app/routes/register.tsx', sections: [], shell: false },
  stocks: { module: 'src/app/routes/stock-list.tsx', sections: ['markets'], shell: true },
  trade: { module: 'src/app/routes/trade-detail.tsx', sections: ['trade', 'markets', 'alerts'], shell: true, budgetKiB: 220 },
  'contract-record': { module: 'src/app/routes/contract-record.tsx', sections: ['records'], shell: true },
  account: { module: 'src/app/routes/account-page.tsx', sections: ['account', 'wallet'], shell: true },
  wallet: { module: 'src/app/routes/wallet-page.tsx', sections: ['wallet'], shell: true },
  history: { module: 'src/app/routes/history-page.tsx', sections: ['wallet'], shell: true },
  responsible: { module: 'src/app/routes/responsible-page.tsx', sections: ['responsible'], shell: true },
  profile: { module: 'src/app/routes/profile-page.tsx', sections: ['profile'], shell: true },
  security: { module: 'src/app/routes/security-page.tsx', sections: ['security'], shell: true },
  invitations: { module: 'src/app/routes/invitations-page.tsx', sections: ['invite'], shell: true },
  'price-alerts': { module: 'src/app/routes/price-alerts-page.tsx', sections: ['alerts'], shell: true },
  copy: { module: 'src/app/routes/copy-page.tsx', sections: ['copy'], shell: true },
  trader: { module: 'src/app/routes/trader-page.tsx', sections: ['copy'], shell: true },
  tournaments: { module: 'src/app/routes/tournaments-page.tsx', sections: ['tournaments'], shell: true },
  tournament: { module: 'src/app/routes/tournament-page.tsx', sections: ['tournaments'], shell: true },
  admin: { module: 'src/app/routes/admin.tsx', sections: ['admin'], shell: false },
};

function closure(key, seen = new Set()) {
  const entry = manifest[key];
  if (!entry) throw new Error(`not in the manifest: ${key}`);
  if (seen.has(entry.file)) return seen;
  seen.add(entry.file);
  for (const dep of entry.imports ?? []) closure(dep, seen);
  return seen;
}

const gz = new Map();
function gzipBytes(file) {
  if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(`${dist}${file}`), { level: 9 }).length);
  return gz.get(file);
}

let failed = false;
const rows = [];
for (const [name, route] of Object.entries(ROUTES)) {
  const files = closure('index.html');
  closure(route.module, files);
  const sections = [...START, ...route.sections];
  if (route.shell) {
    closure(SHELL.module, files);
    sections.push(...SHELL.sections);
  }
  for (const section of sections) closure(`virtual:locale/en-US/${section}`, files);
  const bytes = [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipBytes(f), 0);
  const kib = bytes / 1024;
  const over = route.budgetKiB !== undefined && kib > route.budgetKiB;
  failed ||= over;
  rows.push(`${name.padEnd(16)} ${kib.toFixed(1).padStart(7)} KiB gzipped in ${files.size} files${route.budgetKiB ? ` (budget ${route.budgetKiB} KiB${over ? ', OVER' : ''})` : ''}`);
}
console.log(rows.join('\n'));
if (failed) {
  console.error('initial JavaScript over budget');
  process.exit(1);
}
