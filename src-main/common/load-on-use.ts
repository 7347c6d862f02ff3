// A dependency only some commands use is required where it is first used, not imported at the top:
// every `rightsize` start loads the whole bundle's imports, and each such package cost 25–100 ms of it
// (BENCHMARKS.md, "CLI start-up").
import { createRequire } from 'node:module';

export const loadOnUse = createRequire(import.meta.url);
