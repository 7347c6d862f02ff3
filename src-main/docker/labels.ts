// Every container and image Rightsize makes carries these labels, so that a sweep can always find
// what a dead session left behind (the idea of Testcontainers' reaper, without a reaper container).
export const LABEL = {
  product: 'io.rightsize.product',
  session: 'io.rightsize.session',
  run: 'io.rightsize.run',
  cell: 'io.rightsize.cell',
  app: 'io.rightsize.app',
  kind: 'io.rightsize.kind',
  inputs: 'io.rightsize.inputs',
} as const;

export const PRODUCT = 'rightsize';
