// Which fields of a form have problems, for the sticky Start bar to name them and bring each into
// view: a problem is never left hidden behind the bar.
import type { Problem } from '../../src-main/contract/api.ts';
import { under } from './app-form.ts';

/** A field as the Start bar names it: its label, and the element (data-testid) that holds it and its problem. */
export interface ProblemField {
  label: string;
  testid: string;
}

/** The fields (in form order) that have any of the problems; `places` maps a field to the problem paths it shows. */
export function fieldsWithProblems(
  problems: readonly Problem[],
  places: readonly (ProblemField & { paths: readonly string[] })[],
): ProblemField[] {
  return places
    .filter((f) => problems.some((p) => f.paths.some((prefix) => under(p.path, prefix))))
    .map(({ label, testid }) => ({ label, testid }));
}

/** Scrolls a field to the middle of the window, so neither it nor its problem is under the sticky Start bar. */
export function reveal(testid: string): void {
  const el = document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
  el?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  el?.querySelector<HTMLElement>('input, select, button')?.focus({ preventScroll: true });
}

/** The matrix Builder's fields, in form order, and the matrix paths each shows the problems of. */
export const MATRIX_PLACES = [
  { label: 'CPU cap', testid: 'cpu', paths: ['cpuMillicores', 'budget.cpuMillicores'] },
  { label: 'Memory cap', testid: 'memory', paths: ['memoryMb', 'budget.memoryMb'] },
  { label: 'Replicas', testid: 'replicas-field', paths: ['replicas', 'budget.maxReplicas'] },
  { label: 'Workers', testid: 'workers', paths: ['workers'] },
  { label: 'Launch modes', testid: 'modes-field', paths: ['modes'] },
  { label: 'Apps', testid: 'apps-field', paths: ['apps'] },
  { label: 'Node.js', testid: 'node-field', paths: ['node', 'nodeFlags'] },
  { label: 'Settings', testid: 'settings-field', paths: ['envMatrix'] },
  { label: 'Load', testid: 'load-field', paths: ['load'] },
  { label: 'TLS', testid: 'tls-field', paths: ['tls'] },
  { label: 'HTTP version', testid: 'protocol-field', paths: ['protocol'] },
  { label: 'Bandwidth cap', testid: 'network', paths: ['networkMbps'] },
  { label: 'Timing', testid: 'timing-field', paths: ['durationSec', 'warmupSec', 'repetitions', 'settleBudgetPct'] },
  { label: 'Cost', testid: 'cost-field', paths: ['prices'] },
] as const;
