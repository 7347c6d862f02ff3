// Child process for the engine guard's test: starts the second engine, forms the two-node Swarm, says "ready", then
// waits to be killed (SIGKILL: none of its teardown can run; only the guards can undo what it changed).
import { formSwarm, startSecondEngine } from './second-engine.ts';

const second = await startSecondEngine();
await formSwarm(second);
process.stdout.write('ready\n');
setInterval(() => {}, 1000);
