// Which requests of a file make the mix: the methods a load can send, the app's own work (no static
// assets, which a CDN or static server sends), and one host of a HAR (a page calls analytics, fonts, ads…).
import { joinAnd } from '../../common/text.ts';
import type { RequestSpec } from '../../model/requests.ts';
import type { Dropped, ImportOptions, SeenRequest } from './types.ts';

export type KeptRequest = SeenRequest & { method: RequestSpec['method'] };

const METHODS: ReadonlySet<string> = new Set<RequestSpec['method']>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

const STATIC_EXTENSIONS = new Set(
  (
    'js mjs cjs css map png jpg jpeg gif svg ico webp avif bmp tif tiff apng ' +
    'woff woff2 ttf otf eot mp4 webm ogg ogv mp3 wav m4a flac aac mov avi wasm'
  ).split(' '),
);
/** Chrome's `_resourceType` of what is not the app's own work. */
const STATIC_RESOURCE_TYPES = new Set(['image', 'stylesheet', 'script', 'font', 'media']);

export function isStatic(r: SeenRequest): boolean {
  if (r.resourceType !== undefined && STATIC_RESOURCE_TYPES.has(r.resourceType)) return true;
  const path = r.target.replace(/[?#].*$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot > 0 && STATIC_EXTENSIONS.has(last.slice(dot + 1).toLowerCase());
}

const sameHost = (a: string, wanted: string): boolean => a === wanted || a.replace(/:\d+$/, '') === wanted;

/** The most frequent host, the first seen among equals. */
function mostFrequentHost(rs: readonly SeenRequest[]): string | undefined {
  const counts = new Map<string, number>();
  for (const r of rs) if (r.host !== undefined) counts.set(r.host, (counts.get(r.host) ?? 0) + 1);
  let best: string | undefined;
  for (const [h, n] of counts) if (best === undefined || n > counts.get(best)!) best = h;
  return best;
}

export interface Kept {
  requests: KeptRequest[];
  dropped: Dropped;
  /** The host kept, when the file names hosts and not all are kept. */
  host?: string | undefined;
  hosts: string[];
}

export function keep(all: readonly SeenRequest[], opts: ImportOptions): Kept {
  const dropped: Dropped = { static: 0, otherHosts: 0, other: 0 };
  const served: KeptRequest[] = [];
  for (const r of all) {
    if (r.notServed !== undefined || !METHODS.has(r.method)) dropped.other++;
    else if (!opts.keepStatic && isStatic(r)) dropped.static++;
    else served.push(r as KeptRequest);
  }
  const hosts = [...new Set(served.flatMap((r) => (r.host === undefined ? [] : [r.host])))];
  // The default host is chosen among what is left: a CDN serving most of a page's images is not the app.
  const host = opts.allHosts ? undefined : (opts.host?.trim().toLowerCase() ?? mostFrequentHost(served));
  if (host === undefined) return { requests: served, dropped, hosts };
  const requests = served.filter((r) => r.host === undefined || sameHost(r.host, host));
  dropped.otherHosts = served.length - requests.length;
  return { requests, dropped, host, hosts };
}

/** Why nothing is left, and which option would keep something. */
export function nothingLeft(kept: Kept, total: number): string {
  const { dropped: d } = kept;
  if (total === 0) return 'no requests in the file';
  const parts = [
    d.static ? `${d.static} static asset${d.static === 1 ? '' : 's'}` : '',
    d.otherHosts ? `${d.otherHosts} of other hosts than ${kept.host} (hosts seen: ${joinAnd(kept.hosts)})` : '',
    d.other ? `${d.other} other (methods other than ${[...METHODS].join(' ')}, or no request the app served)` : '',
  ].filter(Boolean);
  const options = [d.static ? 'keepStatic' : '', d.otherHosts ? 'allHosts' : ''].filter(Boolean);
  return `no requests left after dropping ${joinAnd(parts)}${options.length ? `: use ${options.join('/')}` : ''}`;
}
