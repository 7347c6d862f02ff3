// Child process for the sweep test: starts a target container under its own session, prints the
// container id, then waits to be killed (SIGKILL: no cleanup code of ours can run).
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { imageFor } from './docker.ts';

const { app, image } = await imageFor('hello');
const c = await TargetContainer.start({
  image: image.tag,
  launch: { mode: 'single', workers: 1, entry: image.entry, name: app.name },
  port: app.port,
  env: {},
  cpuMillis: 250,
  memoryMb: 64,
  publish: false,
  labels: { app: app.name, run: 'orphan-test' },
});
process.stdout.write(`${c.id}\n`);
setInterval(() => {}, 1000);
