// Linux CPU lists ("0-2,5", as cpusets and taskset write them) ⇄ core numbers: shared by placement,
// the load threads and the host-CPU recorder.

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const out = new Set<number>();
  for (const part of list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [a, b] = part.split('-').map((x) => Number(x));
    if (!Number.isInteger(a) || (b !== undefined && !Number.isInteger(b))) throw new Error(`not a CPU list: "${list}"`);
    for (let c = a!; c <= (b ?? a!); c++) out.add(c);
  }
  return [...out].sort((x, y) => x - y);
}

/** [0, 1, 2, 5] → "0-2,5". */
export function formatCpuList(cores: readonly number[]): string {
  const parts: string[] = [];
  const xs = [...new Set(cores)].sort((a, b) => a - b);
  for (let i = 0; i < xs.length;) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j]! + 1) j++;
    parts.push(j === i ? String(xs[i]) : `${xs[i]}-${xs[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
