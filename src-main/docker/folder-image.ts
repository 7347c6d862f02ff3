import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { BuildContext } from './build-context.ts';
import { docker } from './client.ts';
import { buildImage, imageExists, type BuildLog } from './image-build.ts';
import type { BaseImage } from './base-image.ts';
import type { AppImage } from './app-image-type.ts';
import { planFolder, type InstallPlan } from '../apps/folder-plan.ts';
import type { AppDefinition } from '../apps/catalog.ts';
import { onPath } from '../util/node-binary.ts';

/** Where a project folder lives inside its image. */
export const FOLDER_ROOT = '/srv/app';

/** CA bundles a Debian/Fedora/Alpine host trusts: an install behind a TLS-inspecting proxy needs them. */
const HOST_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

/**
 * The image of a user's project folder: the base, plus the folder as `docker build` would see it
 * (.dockerignore applied), plus its dependencies — its own node_modules, or `npm ci` from its
 * lockfile in a throwaway build stage. Tagged by a hash of everything, so an unchanged folder is
 * never rebuilt, and a changed one without a changed lockfile reuses the cached install.
 */
export async function ensureFolderImage(app: AppDefinition, base: BaseImage, onLog?: BuildLog): Promise<AppImage> {
  if (app.source.kind !== 'folder') throw new Error(`${app.name} is not a folder app`);
  const plan = await planFolder(app.dir, app.entry);
  if (plan.problems.length)
    throw new Error(`${app.name} cannot be built: ${plan.problems.map((p) => p.message).join('; ')}`);
  const ctx = new BuildContext();
  await ctx.addTree('app', app.dir, plan.skip);
  const npm = plan.install.kind === 'lockfile' ? npmForBuild(base) : undefined;
  let ca: string | undefined;
  if (plan.install.kind === 'lockfile') {
    ctx.addFile('deps/package.json', path.join(app.dir, 'package.json'));
    ctx.addFile(`deps/${plan.install.lockfile}`, path.join(app.dir, plan.install.lockfile));
    // stands for npm's files in the tag: hashing them cost ~1.5 s per run
    if (npm?.hostDir) ctx.addText('npm-version', npm.version ?? '');
    ca = HOST_CA_BUNDLES.find((f) => existsSync(f));
    if (ca) ctx.addFile('build-ca.crt', ca, 0o644);
  }
  const workdir = path.posix.join(FOLDER_ROOT, app.source.cwd);
  ctx.addText('Dockerfile', folderDockerfile(plan.install, workdir, npm?.cli ?? 'npm', Boolean(ca)));
  ctx.addText('base', base.tag);
  // One repository per Node.js version named: removeOlderTags keeps the newest of each, not of all.
  const repo = `rightsize/app-user-${app.name}${base.named && base.nodeVersion ? `-node${base.nodeVersion}` : ''}`;
  const tag = `${repo}:${(await ctx.digest()).slice(0, 16)}`;
  const entry = path.posix.join(FOLDER_ROOT, app.entry);
  const version = base.nodeVersion ? { nodeVersion: base.nodeVersion } : {};
  if (await imageExists(tag)) return { tag, entry, built: false, ...version };
  if (npm?.hostDir) await ctx.addTree('npm', npm.hostDir, (rel) => /^(docs|man|tap-snapshots|test)(\/|$)/.test(rel));
  const installNote =
    plan.install.kind === 'lockfile'
      ? ` (npm ci from ${plan.install.lockfile})`
      : plan.install.kind === 'node_modules'
        ? ' (its own node_modules)'
        : '';
  onLog?.(`building ${app.name} from ${app.dir}${installNote}`);
  await buildImage(ctx, tag, { kind: 'app', buildargs: { BASE_IMAGE: base.tag }, onLog });
  await removeOlderTags(tag, onLog);
  return { tag, entry, built: true, ...version };
}

/**
 * A project changes often, and every change is a new tag: keep only the newest image of each app
 * (a tag still used by a container stays; the shared layers are never duplicated anyway).
 */
export async function removeOlderTags(tag: string, onLog?: BuildLog): Promise<void> {
  const repo = tag.slice(0, tag.lastIndexOf(':'));
  const images = await docker().listImages({ filters: JSON.stringify({ reference: [repo] }) });
  for (const old of images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== tag && t.startsWith(`${repo}:`))) {
    await docker()
      .getImage(old)
      .remove()
      .then(
        () => onLog?.(`removed the previous image ${old}`),
        () => {},
      );
  }
}

/**
 * npm for the install stage. The official Node.js image has its own; the offline base has only
 * `node`, so this machine's npm is copied into the throwaway stage (never into the final image).
 */
function npmForBuild(base: BaseImage): { cli: string; hostDir?: string; version?: string } {
  if (base.strategy === 'official') return { cli: 'npm' };
  const host = hostNpm();
  if (!host) {
    throw new Error(
      'Installing dependencies from a lockfile needs npm on this machine (the offline base image has none): ' +
        'install Node.js with npm, run "npm install" in the project folder, or use the official base image.',
    );
  }
  return { cli: '/opt/rightsize-npm/bin/npm-cli.js', hostDir: host.dir, version: host.version };
}

let hostNpmCache: { dir: string; version: string } | null | undefined;
/** This machine's npm package directory and version, looked up once per process. */
function hostNpm(): { dir: string; version: string } | undefined {
  if (hostNpmCache === undefined) {
    const dir = hostNpmDir();
    hostNpmCache = dir
      ? {
          dir,
          version: (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version,
        }
      : null;
  }
  return hostNpmCache ?? undefined;
}

function hostNpmDir(): string | undefined {
  const bin = onPath('npm');
  if (!bin) return undefined;
  try {
    const dir = path.dirname(path.dirname(realpathSync(bin))); // …/npm/bin/npm-cli.js → …/npm
    return existsSync(path.join(dir, 'bin', 'npm-cli.js')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** How the deps stage installs from the lockfile. */
const NPM_CI_ARGS = ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=warn', '--update-notifier=false'];

function folderDockerfile(install: InstallPlan, workdir: string, npmCli: string, withCa: boolean): string {
  const lines = ['# A user project on a Rightsize base image. Generated by Rightsize.', 'ARG BASE_IMAGE'];
  if (install.kind === 'lockfile') {
    const npm = npmCli === 'npm' ? ['npm'] : ['node', npmCli];
    lines.push(
      'FROM ${BASE_IMAGE} AS deps',
      'COPY deps/ /srv/app/',
      ...(npmCli === 'npm' ? [] : ['COPY npm/ /opt/rightsize-npm/']),
      // The host's trusted CAs, so the install works behind the same TLS-inspecting proxy the host uses.
      ...(withCa
        ? [
            'COPY build-ca.crt /etc/ssl/certs/rightsize-build-ca.crt',
            'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/rightsize-build-ca.crt',
          ]
        : []),
      'WORKDIR /srv/app',
      `RUN ${JSON.stringify([...npm, ...NPM_CI_ARGS])}`,
    );
  }
  lines.push('FROM ${BASE_IMAGE}', 'COPY app/ /srv/app/');
  if (install.kind === 'lockfile') lines.push('COPY --from=deps /srv/app/node_modules /srv/app/node_modules');
  lines.push(`WORKDIR ${workdir}`);
  return `${lines.join('\n')}\n`;
}
