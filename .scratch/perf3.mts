import { mkdirSync, writeFileSync } from 'node:fs';
import { parseAllDocuments, LineCounter } from 'yaml';
const t0 = performance.now();
const { loadManifestPaths } = await import('/work/main/src/model/manifest-loader.js');
const dir = '/tmp/exp/perfset'; mkdirSync(dir, { recursive: true });
function doc(f: number, i: number): string {
  const n = `r-${f}-${i}`;
  switch (i % 4) {
    case 0: return `apiVersion: cairn.dev/v1\nkind: Server\nmetadata:\n  name: s-${n}\n  labels: { team: shop }\nspec:\n  provider: sandbox\n  region: eu-1\n  size: small\n  image: debian-12\n`;
    case 1: return `apiVersion: cairn.dev/v1\nkind: Database\nmetadata:\n  name: d-${n}\nspec:\n  type: postgresql\n  server: s-r-${f}-${i - 1}\n  version: "16"\n  storageGb: 20\n  backup: { schedule: "0 3 * * *", retention: 7 }\n`;
    case 2: return `apiVersion: cairn.dev/v1\nkind: App\nmetadata:\n  name: a-${n}\nspec:\n  server: s-r-${f}-${i - 2}\n  source:\n    git: { url: "https://git.example.com/acme/shop.git", ref: main }\n  port: 8080\n  env: { NODE_ENV: production }\n  databases: [d-r-${f}-${i - 1}]\n  healthCheck: { path: /healthz }\n`;
    default: return `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: p-${n}\nspec:\n  vendor: sandbox\n`;
  }
}
const provider = `apiVersion: cairn.dev/v1\nkind: Provider\nmetadata:\n  name: sandbox\nspec:\n  vendor: sandbox\n---\n`;
for (let f = 0; f < 10; f++) writeFileSync(`${dir}/f${f}.yaml`, (f === 0 ? provider : '') + Array.from({ length: f === 0 ? 999 : 1000 }, (_, i) => doc(f, i)).join('---\n'));
for (let run = 0; run < 3; run++) {
  const t = performance.now();
  const r = await loadManifestPaths([dir]);
  console.log(`run ${run}: ${r.manifests.length} manifests, ${r.errors.length} errors, ${(performance.now() - t).toFixed(0)} ms`);
}
const { readFileSync, readdirSync } = await import('node:fs');
const texts = readdirSync(dir).map((f) => readFileSync(`${dir}/${f}`, 'utf8'));
const t = performance.now();
for (const text of texts) for (const d of parseAllDocuments(text, { lineCounter: new LineCounter(), uniqueKeys: false, prettyErrors: false })) d.toJS();
console.log(`yaml parse+toJS alone: ${(performance.now() - t).toFixed(0)} ms`);
