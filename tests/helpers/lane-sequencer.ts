// The integration lanes run their files in the order tests/helpers/lanes.ts lists them, every time:
// lane B lists the dependency tests last, so that the offline database images npm test starts
// building (tests/helpers/prebuild-dependency-images.ts) are ready by then. Other files keep vitest's
// own order (the slowest first, by the last run).
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { QUIET, SHARED_A, SHARED_B } from './lanes.ts';

const ORDER = new Map<string, number>([...SHARED_A, ...SHARED_B, ...QUIET].map((n, i) => [`${n}.test.ts`, i]));
const laneIndex = (s: TestSpecification): number | undefined =>
  s.moduleId.includes(`${path.sep}tests${path.sep}integration${path.sep}`)
    ? ORDER.get(path.basename(s.moduleId))
    : undefined;

export default class LaneSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const lane = sorted.filter((f) => laneIndex(f) !== undefined).sort((a, b) => laneIndex(a)! - laneIndex(b)!);
    return [...sorted.filter((f) => laneIndex(f) === undefined), ...lane];
  }
}
