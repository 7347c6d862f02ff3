// Hash routes: they survive a reload in a browser and need no server support in Electron (file://).
export type Route =
  | { name: 'builder' }
  | { name: 'live'; runId: number }
  | { name: 'history' }
  | { name: 'apps' }
  | { name: 'targets' }
  | { name: 'run'; runId: number }
  | { name: 'report'; runId: number }
  | { name: 'compare'; a: number; b: number };

function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const n = (i: number): number => Number(parts[i]);
  switch (parts[0]) {
    case 'live':
      return Number.isInteger(n(1)) ? { name: 'live', runId: n(1) } : { name: 'builder' };
    case 'history':
      return { name: 'history' };
    case 'apps':
      return { name: 'apps' };
    case 'targets':
      return { name: 'targets' };
    case 'runs':
      if (!Number.isInteger(n(1))) return { name: 'history' };
      return parts[2] === 'report' ? { name: 'report', runId: n(1) } : { name: 'run', runId: n(1) };
    case 'compare':
      return Number.isInteger(n(1)) && Number.isInteger(n(2)) ? { name: 'compare', a: n(1), b: n(2) } : { name: 'history' };
    default:
      return { name: 'builder' };
  }
}

export const router = $state({ route: parseRoute(window.location.hash) });
window.addEventListener('hashchange', () => {
  router.route = parseRoute(window.location.hash);
});

export function go(path: string): void {
  window.location.hash = path;
}
