import { build } from '/work/main/build/index.ts';

for (let i = 0; i < 3; i++) {
  const r = await build({ root: '/tmp/site10k', dryRun: true });
  console.log(
    JSON.stringify(Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, Math.round(v)]))),
  );
}
