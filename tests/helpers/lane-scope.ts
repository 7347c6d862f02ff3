// npm test runs two integration lanes at once on one engine (tests/helpers/lanes.ts), each with its own
// RIGHTSIZE_LABELS: a check of "what is on the engine" counts this lane's containers, not the other's.
import type Docker from 'dockerode';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL, PRODUCT, scopeLabels } from '../../src-main/docker/labels.ts';

/** Made by Rightsize in another lane: the product's label without this process's scope labels. */
export const otherLane = (labels: Record<string, string> | undefined): boolean =>
  labels?.[LABEL.product] === PRODUCT && Object.entries(scopeLabels()).some(([k, v]) => labels[k] !== v);

/** Every container on the engine (all states) but another lane's. */
export async function laneContainers(client: Docker = docker()): Promise<Docker.ContainerInfo[]> {
  return (await client.listContainers({ all: true })).filter((c) => !otherLane(c.Labels));
}
