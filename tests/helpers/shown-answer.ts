// The answer as the UI gets it from `runs.recommend`: recommend() of a (constructed) run with the view
// the service adds (service/views.ts), so a component test renders exactly what the engine would send.
import { recommend } from '../../src-main/analysis/index.ts';
import type { RecommendOptions } from '../../src-main/analysis/types.ts';
import type { ShownAnswer } from '../../src-main/contract/api.ts';
import type { RunDetail } from '../../src-main/model/stored.ts';
import { shownAnswer } from '../../src-main/service/views.ts';

export const answerOf = (run: RunDetail, options: RecommendOptions = {}): ShownAnswer =>
  shownAnswer(recommend(run, options), run.cells);
