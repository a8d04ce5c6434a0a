const t0 = performance.now();
const { loadManifestPaths } = await import('/work/main/src/model/manifest-loader.js');
const t1 = performance.now();
const r = await loadManifestPaths(['/tmp/exp/perfset']);
const t2 = performance.now();
console.log(`cold: import ${(t1 - t0).toFixed(0)} ms, first load ${(t2 - t1).toFixed(0)} ms (${r.manifests.length} manifests, ${r.errors.length} errors)`);
