// Global setup for the suites without Docker (unit, components, runner): temporary folders only.
// They run without the Docker lock, so they must not judge the engine's images.
import { noTrace } from './no-trace.ts';

export default (): Promise<(() => Promise<void>) | undefined> => noTrace({ docker: false });
