// A user app's problems name fields of its stored definition ('source.dir'); on the command line
// the user typed options (`--folder`), so the CLI says those instead.
import type { Problem } from '../common/issues.ts';

const OPTION_OF: Record<string, string> = {
  name: 'the name',
  description: '--description',
  source: '--folder or --image',
  'source.kind': '--folder or --image',
  'source.dir': '--folder',
  'source.entry': '--entry',
  'source.args': '--arg',
  'source.ecosystem': '--ecosystem',
  'source.ecosystemApp': '--ecosystem-app',
  'source.image': '--image',
  'source.workersEnv': '--workers-env',
  port: '--port',
  health: '--health',
  tls: '--tls',
  http2: '--http2',
  env: '--env',
  requests: '--request',
  '(app)': 'the app',
};

/**
 * The option a problem's path stands for: `source.dir` → `--folder`, `env.1FOO` → `--env 1FOO`,
 * `requests.1.status` → `--request 2 (status)`. A path it does not know is kept as it is.
 */
export function optionOf(path: string): string {
  if (OPTION_OF[path]) return OPTION_OF[path]!;
  const [head, ...rest] = path.split('.');
  if (head === 'env' && rest.length) return `--env ${rest.join('.')}`;
  if (head === 'requests' && rest.length) {
    const [n, ...field] = rest;
    const which = /^\d+$/.test(n!) ? `--request ${Number(n) + 1}` : '--request';
    return field.length ? `${which} (${field.join('.')})` : which;
  }
  if (head === 'dependencies' && rest.length) {
    const [n, ...field] = rest;
    return `dependency ${/^\d+$/.test(n!) ? Number(n) + 1 : n}${field.length ? ` (${field.join('.')})` : ''}`;
  }
  if (head === 'source' && rest.length) return OPTION_OF[`source.${rest[0]}`] ?? path;
  return path;
}

/** The problems as the command line's user reads them: "--folder: the folder /x does not exist". */
export const optionProblems = (problems: Problem[]): Problem[] =>
  problems.map((p) => ({ ...p, path: optionOf(p.path) }));
