import type { AppDefinition } from './catalog.ts';
import { mixText } from '../mix/describe.ts';

/** One line per app a run used, from the copy the run kept: where it came from and what it was sent. */
export function appLines(apps: unknown[]): string[] {
  return (apps as AppDefinition[])
    .filter((a) => a && !a.builtIn)
    .map((a) => {
      const src = a.source;
      const from =
        src.kind === 'folder'
          ? `folder ${a.dir}, node ${[a.entry, ...src.args].join(' ')}` +
            (src.ecosystem ? ` (from ${src.ecosystem.file})` : '')
          : src.kind === 'image'
            ? `image ${src.image} (${src.imageId.replace(/^sha256:/, '').slice(0, 12)}), ` +
              `workers ${src.workersEnv ? `via ${src.workersEnv}` : 'fixed'}`
            : src.kind === 'dockerfile'
              ? `folder ${a.dir} built with its ${src.dockerfile}` +
                `${src.command ? `, command ${src.command.join(' ')}` : ''}, ` +
                `workers ${src.workersEnv ? `via ${src.workersEnv}` : 'fixed'}`
              : 'built in';
      return `App ${a.name}: ${from}; port ${a.port}, health ${a.health}; requests ${mixText(a.requests)}`;
    });
}
