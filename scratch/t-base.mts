import { ensureBaseImage } from '/work/main/src-main/docker/base-image.ts';
const t = Date.now();
const b = await ensureBaseImage({ onLog: (l) => console.log('  |', l), pullTimeoutMs: 10000 });
console.log(b, Date.now() - t, 'ms');
const t2 = Date.now();
console.log(await ensureBaseImage(), Date.now() - t2, 'ms (cached)');
