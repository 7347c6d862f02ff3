import type Docker from 'dockerode';

/**
 * Makes `tag` present on `to`: nothing when it is there, else `docker save | docker load` from
 * `from` (no registry needed; the engine keeps it in its own cache for the next run).
 */
export async function shipImage(tag: string, to: Docker, from: Docker | undefined, where: string): Promise<void> {
  if (
    await to
      .getImage(tag)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  )
    return;
  if (!from) throw new Error(`the image ${tag} is not on ${where} and there is no engine to ship it from`);
  const tar = await from.getImage(tag).get();
  const out = (await to.loadImage(tar, { quiet: true })) as NodeJS.ReadableStream;
  await new Promise<void>((resolve, reject) =>
    to.modem.followProgress(out, (err: Error | null) => (err ? reject(err) : resolve())),
  );
  await to
    .getImage(tag)
    .inspect()
    .catch(() => {
      throw new Error(`shipping ${tag} to ${where} did not leave the image there`);
    });
}
