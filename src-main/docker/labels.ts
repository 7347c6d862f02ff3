// Every container and image Rightsize makes carries these labels, so that the reaper of a session
// (src-main/reaper/) and the start-up sweep can always find what a dead session left behind.
export const LABEL = {
  product: 'io.rightsize.product',
  session: 'io.rightsize.session',
  run: 'io.rightsize.run',
  cell: 'io.rightsize.cell',
  app: 'io.rightsize.app',
  kind: 'io.rightsize.kind',
  inputs: 'io.rightsize.inputs',
  /** On the lab lock: what holds the lab, and since when (ISO time). */
  what: 'io.rightsize.what',
  since: 'io.rightsize.since',
} as const;

export const PRODUCT = 'rightsize';
