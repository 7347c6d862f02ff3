// The cost display on the answer: the run's prices and where they came from, the answer's one line
// on the cheapest, ≤ for a cost that is only an upper bound, and edited prices recomputed by the
// engine (runs.recommend with `prices`), with a bad price refused before anything is asked.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Costs from '../../src-renderer/components/Costs.svelte';
import { recommend } from '../../src-main/analysis/index.ts';
import type { Flag } from '../../src-main/model/types.ts';
import { reps, run } from '../helpers/run-fixture.ts';
import { answerOf } from '../helpers/shown-answer.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const PRICES = { cpuHour: 0.04, gbHour: 0.005, replicaHour: 0 };
const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const r = run(
  [
    ...reps({ workers: 1 }, [1000, 1010, 990]),
    ...reps({ workers: 2, cpu: 2000 }, [1500, 1510, 1490]),
    ...reps({ workers: 4, cpu: 4000 }, [2000, 2010, 1990]).map((c) => ({ ...c, flags: [clientBound], clientBound: true })),
  ],
  { matrix: { apps: ['hello'], placement: 'auto', prices: PRICES } },
);
const rec = recommend(r);
const recommendCalls = () => fakeEngine.calls.filter((c) => c.name === 'runs.recommend').map((c) => c.input as { prices?: unknown });

beforeEach(() => {
  fakeEngine.calls.length = 0;
  fakeEngine.answers['runs.recommend'] = ({ prices }: { prices?: Partial<typeof PRICES> }) => answerOf(r, prices ? { prices } : {});
});

describe('Costs', () => {
  it('shows the run’s prices, the cheapest line and each configuration’s cost, cheapest first, ≤ for an upper bound', () => {
    render(Costs, { props: { runId: 1, costs: rec.costs! } });
    expect(screen.getByTestId('costs-prices').textContent).toBe('At $0.04 per vCPU-hour, $0.005 per GB-hour: the prices stored with the run.');
    const rows = screen.getAllByTestId('costs-row').map((x) => [...x.querySelectorAll('td')].map((td) => td.textContent!.trim()).join(' | '));
    // 1 worker: $0.04125 an hour ÷ (1000 × 3600) × 1e6 = $0.0115; 2 workers: $0.08125 → $0.0150;
    // 4 workers: 4 × 0.04 + 0.00125 = $0.16125 at ≥ 2,000 req/s → ≤ $0.0224.
    expect(rows[0]).toMatch(/^1 cluster worker on 1 CPU \/ 256 MB \| \$0\.0413 \| \$0\.0115 \(/);
    expect(rows[1]).toMatch(/^2 cluster workers on 2 CPUs \/ 256 MB \| \$0\.0813 \| \$0\.0150 \(/);
    expect(rows[2]).toBe('4 cluster workers on 4 CPUs / 256 MB | $0.161 | ≤ $0.0224');
    // A cost that is only an upper bound (4 workers) keeps the cheapest undecided: the line says so.
    const line = screen.getByTestId('costs-line');
    expect(line.dataset.state).toBe('undecided');
    expect(line.textContent).toContain("a rival's cost is only an upper bound");
  });

  it('edited prices are recomputed by the engine and shown as given now; the run’s prices come back', async () => {
    render(Costs, { props: { runId: 1, costs: rec.costs! } });
    await fireEvent.input(screen.getByTestId('price-cpu'), { target: { value: '0.08' } });
    await fireEvent.click(screen.getByTestId('price-apply'));
    await vi.waitFor(() => expect(screen.getByTestId('costs-prices').textContent).toBe('At $0.08 per vCPU-hour, $0.005 per GB-hour: prices given now.'));
    expect(recommendCalls().at(-1)).toMatchObject({ runId: 1, prices: { cpuHour: 0.08, gbHour: 0.005, replicaHour: 0 } });
    // 1 worker at $0.08 per vCPU-hour: 0.08 + 0.00125 = $0.08125 an hour → $0.0226 per million.
    expect(screen.getAllByTestId('costs-row')[0]!.textContent).toContain('$0.0226');
    await fireEvent.click(screen.getByTestId('price-reset'));
    expect(screen.getByTestId('costs-prices').textContent).toContain('the prices stored with the run');
  });

  it('a bad price is named and nothing is asked', async () => {
    render(Costs, { props: { runId: 1, costs: rec.costs! } });
    await fireEvent.input(screen.getByTestId('price-gb'), { target: { value: '-1' } });
    expect(screen.getByTestId('price-problem').textContent).toBe('Give the GB-hour price in dollars, from 0 to 1000.');
    expect((screen.getByTestId('price-apply') as HTMLButtonElement).disabled).toBe(true);
    expect(recommendCalls()).toHaveLength(0);
  });
});

describe('the Size form: search for the cheapest by price', () => {
  it('sends cheapest and the prices the engine checks; a bad price is shown at the Cost fields', async () => {
    const { default: Builder } = await import('../../src-renderer/routes/Builder.svelte');
    const { validateSizeSpec } = await import('../../src-main/engine/auto-size/spec.ts');
    const apps = [{ name: 'hello', description: '', stresses: '', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
    fakeEngine.answers['apps.list'] = () => apps;
    fakeEngine.answers['presets.list'] = () => [];
    fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
    fakeEngine.answers['size.validate'] = ({ spec }: { spec: unknown }) => {
      const v = validateSizeSpec(spec, { cores: 2, memoryMb: 8192, apps: ['hello'] });
      return v.ok ? { ok: true, problems: [], gridCells: v.gridCells, maxCells: v.spec.maxCells, etaSec: 60 } : { ok: false, problems: v.problems, gridCells: 0, maxCells: 0, etaSec: 0 };
    };
    window.location.hash = '';
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('builder-mode-size'));
    const lastSpec = () => (fakeEngine.calls.filter((c) => c.name === 'size.validate').at(-1)?.input as { spec: Record<string, unknown> } | undefined)?.spec;
    await vi.waitFor(() => expect(lastSpec()).toBeDefined());
    expect(lastSpec()).not.toHaveProperty('cheapest');
    expect(lastSpec()).not.toHaveProperty('prices');
    await fireEvent.click(screen.getByTestId('size-cheapest'));
    await fireEvent.input(screen.getByTestId('size-price-gb'), { target: { value: '0.1' } });
    // The other prices from the example defaults ($0.031611 per vCPU-hour, $0 per replica-hour).
    await vi.waitFor(() => expect(lastSpec()).toMatchObject({ cheapest: true, prices: { cpuHour: 0.031611, gbHour: 0.1, replicaHour: 0 } }));
    await fireEvent.input(screen.getByTestId('size-price-cpu'), { target: { value: '-2' } });
    await vi.waitFor(() => expect(screen.getByTestId('size-prices-error').textContent).toContain('-2'));
  });
});
