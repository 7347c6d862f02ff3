// Global setup for the suites that use Docker (vitest's integration project, Playwright): what the
// run makes (images, containers, temporary folders) is removed at its end, and anything that
// cannot be removed fails the run. Under scripts/test.mjs the runner does this for the whole run.
import { noTrace } from './no-trace.ts';

export default (): Promise<(() => Promise<void>) | undefined> => noTrace({ docker: true });
