import { describe, expect, it } from 'vitest';
import tar from 'tar-stream';
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  envValue,
  IMAGE_PROBE_SCRIPT,
  imageProbeNodeOptions,
  probeArchive,
} from '../../src-main/docker/image-probe.ts';

describe("the probe in a user's image", () => {
  it("appends its preload to the image's own NODE_OPTIONS, never replacing them", () => {
    expect(imageProbeNodeOptions(undefined, ['PATH=/bin', 'NODE_OPTIONS=--max-old-space-size=48'])).toBe(
      `--max-old-space-size=48 --require ${IMAGE_PROBE_SCRIPT}`,
    );
    expect(imageProbeNodeOptions(undefined, ['PATH=/bin'])).toBe(`--require ${IMAGE_PROBE_SCRIPT}`);
    expect(imageProbeNodeOptions(undefined, undefined)).toBe(`--require ${IMAGE_PROBE_SCRIPT}`);
  });

  it("takes the cell's NODE_OPTIONS over the image's (a container variable replaces the image's)", () => {
    expect(imageProbeNodeOptions('--enable-source-maps', ['NODE_OPTIONS=--max-old-space-size=48'])).toBe(
      `--enable-source-maps --require ${IMAGE_PROBE_SCRIPT}`,
    );
  });

  it('reads a variable whose value holds "="', () => {
    expect(envValue(['A=1', 'NODE_OPTIONS=--title=a=b'], 'NODE_OPTIONS')).toBe('--title=a=b');
    expect(envValue(['NODE_OPTIONS_X=1'], 'NODE_OPTIONS')).toBeUndefined();
  });

  it('packs the probe readable by any user, in its own folder', async () => {
    const entries: { name: string; mode?: number; body: string }[] = [];
    const extract = tar.extract();
    const done = new Promise<void>((resolve, reject) => {
      extract.on('entry', (h, stream, next) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: unknown) => chunks.push(c as Buffer));
        stream.on('end', () => {
          entries.push({ name: h.name, mode: h.mode, body: Buffer.concat(chunks).toString() });
          next();
        });
      });
      extract.on('finish', resolve);
      extract.on('error', reject);
    });
    Readable.from(await probeArchive()).pipe(extract);
    await done;
    const probe = readFileSync(path.join(__dirname, '../../resources/base-image/launchers/probe.js'), 'utf8');
    expect(entries.map((e) => [e.name, e.mode])).toEqual([
      ['.rightsize/', 0o755],
      ['.rightsize/probe.js', 0o644],
    ]);
    expect(entries[1]!.body).toBe(probe);
    expect(`/${entries[1]!.name}`).toBe(IMAGE_PROBE_SCRIPT);
  });
});
