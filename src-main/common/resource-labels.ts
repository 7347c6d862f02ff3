// CPU and memory as every listing says them: the answer, the snippets' comments, the reports, the
// search and the UI. The one place these rules live (pure, so the renderer can import it).
import { fmtNum } from './format.ts';

/** "0.5 CPU", "1 CPU", "2 CPUs": at most two decimals, plural above one CPU. */
export const cpuLabel = (millis: number): string =>
  `${fmtNum(millis / 1000, millis % 1000 === 0 ? 0 : millis % 100 === 0 ? 1 : 2)} CPU${millis > 1000 ? 's' : ''}`;

/** A CPU cap exactly as set: cpuLabel where two decimals hold it ("0.25 CPU", "2 CPUs"), else "375m CPU". */
export const exactCpu = (millis: number): string => (millis % 10 === 0 ? cpuLabel(millis) : `${millis}m CPU`);

/** "256 MB", "4 GB". */
export const memLabel = (mb: number): string => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GB` : `${mb} MB`);

/** "1 CPU / 256 MB". */
export const pairLabel = (cpuMillis: number, memoryMb: number): string =>
  `${cpuLabel(cpuMillis)} / ${memLabel(memoryMb)}`;
