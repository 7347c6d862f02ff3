import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import DeploySnippets from '../../src-renderer/components/DeploySnippets.svelte';
import Report from '../../src-renderer/routes/Report.svelte';
import { answerOf } from '../helpers/shown-answer.ts';
import { deployAnswer } from '../../src-main/deploy/from-cell.ts';
import { deploySnippet, recommendedDeploy } from '../../src-main/deploy/snippets.ts';
import { reps, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

// The engine's real answers (deployAnswer and recommend over a hand-built run); only the transport is faked.
const r = run([
  ...reps({ workers: 1 }, [24100, 24600, 23900], [1790, 1850, 1700]),
  ...reps({ workers: 2 }, [24300, 24800, 24000], [2100, 2300, 2000]),
  ...reps({ workers: 1, cpu: 2000, mem: 512 }, [26000, 26200, 25900], [1500, 1550, 1480]),
  ...reps({ workers: 2, cpu: 2000, mem: 512 }, [41000, 43000, 42000], [1900, 2000, 1950]),
], { name: 'sizing' });
const rec = answerOf(r);
const deployCalls = () => fakeEngine.calls.filter((c) => c.name === 'deploy.snippets').map((c) => c.input as { runId: number; cellId?: number });

const clipboard = { writeText: vi.fn<(t: string) => Promise<void>>() };
beforeEach(() => {
  fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => deployAnswer(r, rec, undefined, cellId);
  fakeEngine.answers['runs.recommend'] = () => rec;
  clipboard.writeText.mockReset().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
});
afterEach(() => {
  Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true });
});

async function shown(): Promise<HTMLElement> {
  return vi.waitFor(() => screen.getByTestId('deploy-text'));
}

describe('DeploySnippets', () => {
  it('shows the recommendation’s PM2 snippet with why and how sure; Copy puts exactly that text on the clipboard and says so', async () => {
    render(DeploySnippets, { props: { runId: 1 } });
    const pre = await shown();
    const expected = deploySnippet('pm2', recommendedDeploy(rec)!);
    expect(pre.textContent).toBe(expected);
    expect(screen.getByTestId('deploy-why').textContent).toContain('Confidence: ');
    const copy = screen.getByRole('button', { name: 'Copy the PM2 snippet' });
    expect(copy.textContent).toBe('Copy');
    await fireEvent.click(copy);
    await vi.waitFor(() => expect(copy.textContent).toBe('Copied ✓'));
    expect(clipboard.writeText).toHaveBeenCalledWith(expected);
    expect(screen.getByRole('status').textContent).toBe('Copied the PM2 snippet to the clipboard.');
  });

  it('falls back to the copy command where the Clipboard API is missing or refused, and says when neither works', async () => {
    clipboard.writeText.mockRejectedValue(new Error('denied'));
    let copiedText = '';
    const exec = vi.fn(() => {
      copiedText = (document.activeElement as HTMLTextAreaElement).value; // the hidden textarea holds the selection
      return true;
    });
    Object.defineProperty(document, 'execCommand', { value: exec, configurable: true });
    render(DeploySnippets, { props: { runId: 1 } });
    await shown();
    await fireEvent.click(screen.getByTestId('deploy-tab-compose'));
    const copy = screen.getByTestId('deploy-copy');
    await fireEvent.click(copy);
    await vi.waitFor(() => expect(copy.textContent).toBe('Copied ✓'));
    expect(exec).toHaveBeenCalledWith('copy');
    expect(copiedText).toBe(deploySnippet('compose', recommendedDeploy(rec)!));
    expect(document.querySelector('textarea')).toBeNull(); // cleaned up

    exec.mockReturnValue(false);
    await fireEvent.click(screen.getByTestId('deploy-tab-pm2'));
    await fireEvent.click(screen.getByTestId('deploy-copy'));
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toContain('could not be reached: select the PM2 snippet and copy it by hand'));
    expect(screen.getByTestId('deploy-copy').textContent).toBe('Copy');
  });

  it('is a keyboard tab list: arrows, Home and End move the selected tab and focus with it', async () => {
    render(DeploySnippets, { props: { runId: 1 } });
    await shown();
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => [t.textContent, t.getAttribute('aria-selected'), t.getAttribute('tabindex')])).toEqual([['PM2', 'true', '0'], ['Kubernetes', 'false', '-1'], ['Docker Compose', 'false', '-1']]);
    await fireEvent.keyDown(tabs[0]!, { key: 'ArrowRight' });
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Kubernetes' }));
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe('deploy-tab-kubernetes');
    expect(screen.getByTestId('deploy-text').textContent).toBe(deploySnippet('kubernetes', recommendedDeploy(rec)!));
    await fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(screen.getByRole('tab', { name: 'Docker Compose' }).getAttribute('aria-selected')).toBe('true');
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' }); // wraps
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'PM2' }));
  });

  it('any measured cell can be picked: the engine is asked for that cell, and its snippet says it is not the recommendation', async () => {
    render(DeploySnippets, { props: { runId: 1 } });
    await shown();
    await fireEvent.click(screen.getByTestId('deploy-copy'));
    await vi.waitFor(() => expect(screen.getByTestId('deploy-copy').textContent).toBe('Copied ✓'));
    const select = screen.getByTestId('deploy-pick') as HTMLSelectElement;
    expect(select.options).toHaveLength(1 + r.cells.length);
    await fireEvent.change(select, { target: { value: '10' } }); // cell #11: 2 CPUs / 512 MB, 2 workers, repetition 2
    await vi.waitFor(() => expect(screen.getByTestId('deploy-text').textContent).toContain('one measured cell, not the recommendation'));
    expect(deployCalls().at(-1)).toEqual({ runId: 1, cellId: r.cells[10]!.id });
    expect(screen.getByTestId('deploy-text').textContent).toContain('instances: 2,');
    // "Copied" spoke of the recommendation's text: it is not carried over to the cell's.
    expect(screen.getByTestId('deploy-copy').textContent).toBe('Copy');
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('Save hands the snippet under its file name to the host', async () => {
    fakeEngine.answers['files.save'] = () => ({ saved: true, path: '/tmp/x' });
    render(DeploySnippets, { props: { runId: 1 } });
    await shown();
    await fireEvent.click(screen.getByTestId('deploy-tab-kubernetes'));
    await fireEvent.click(screen.getByRole('button', { name: /^Save the Kubernetes snippet as rightsize-run-1-kubernetes\.yaml$/ }));
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toBe('Saved /tmp/x'));
    expect(fakeEngine.calls.find((c) => c.name === 'files.save')!.input).toEqual({ filename: 'rightsize-run-1-kubernetes.yaml', content: deploySnippet('kubernetes', recommendedDeploy(rec)!), encoding: 'utf8' });
  });

  it('says the engine’s message when there is nothing to deploy', async () => {
    fakeEngine.answers['deploy.snippets'] = () => {
      throw Object.assign(new Error('x'), { data: { code: 'NOT_FOUND', message: 'Run 1 has no answer to deploy: …' } });
    };
    render(DeploySnippets, { props: { runId: 1 } });
    await vi.waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Run 1 has no answer to deploy: …'));
  });
});

describe('the answer page', () => {
  it('shows the recommendation’s snippets under the table; “Deploy…” on another pair shows the knee of that pair', async () => {
    render(Report, { props: { runId: 1 } });
    await shown();
    expect(deployCalls()[0]).toEqual({ runId: 1, marginPct: 5 });
    const rows = screen.getAllByTestId('deploy-row');
    expect(rows).toHaveLength(rec.scopes.length);
    const second = rec.scopes[1]!;
    expect(rows[1]!.getAttribute('aria-label')!.startsWith(`Deploy the knee of ${second.label}: `)).toBe(true);
    await fireEvent.click(rows[1]!);
    const kneeCell = r.cells.find((c) => c.config.index === second.knee.cellIndexes[0])!;
    await vi.waitFor(() => expect(deployCalls().at(-1)).toEqual({ runId: 1, marginPct: 5, cellId: kneeCell.id }));
    await vi.waitFor(() => expect(screen.getByTestId('deploy-text').textContent).toContain(`one repetition of the knee of ${second.label}`));
    expect(within(screen.getByTestId('deploy')).getByTestId('deploy-pick')).toHaveProperty('value', String(kneeCell.config.index));
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Deploy it' }));
    expect(screen.getByText(`rightsize report 1 --emit pm2|kubernetes|compose --cell ${kneeCell.config.index + 1}`, { exact: false })).toBeTruthy();
    // Back to the recommendation from the first row.
    await fireEvent.click(rows[0]!);
    await vi.waitFor(() => expect(deployCalls().at(-1)).toEqual({ runId: 1, marginPct: 5 }));
  });
});

describe('the answer page deploys what the answer names', () => {
  it('with an objective: “Deploy…” on the first pair’s knee is a measured cell, not the recommendation (the cheapest meeting it)', async () => {
    // 0.5 CPU: 1 worker is the knee but misses p99 ≤ 2 ms; 2 workers meet it and are the cheapest that do.
    const o = run([
      ...reps({ workers: 1, cpu: 500 }, [12000, 12100, 11900], [2600, 2500, 2700]),
      ...reps({ workers: 2, cpu: 500 }, [12050, 12000, 12100], [1500, 1600, 1550]),
      ...reps({ workers: 1, cpu: 1000 }, [24000, 24100, 23900], [1700, 1800, 1750]),
    ], { name: 'objective' });
    const recO = answerOf(o, { slo: { p99Ms: 2, minRps: 0, maxErrorPct: 1 } });
    fakeEngine.answers['runs.recommend'] = () => recO;
    fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => deployAnswer(o, recO, undefined, cellId);
    render(Report, { props: { runId: 1 } });
    const pre = await shown();
    expect(pre.textContent).toBe(deploySnippet('pm2', recommendedDeploy(recO)!));
    expect(pre.textContent).toContain('instances: 2,'); // the objective's pick, not the knee (1 worker)
    await fireEvent.click(screen.getAllByTestId('deploy-row')[0]!);
    const kneeCell = o.cells.find((c) => c.config.index === recO.scopes[0]!.knee.cellIndexes[0])!;
    await vi.waitFor(() => expect(deployCalls().at(-1)).toMatchObject({ cellId: kneeCell.id }));
    await vi.waitFor(() => expect(screen.getByTestId('deploy-text').textContent).toContain('not the recommended configuration'));
  });

  it('an auto-size run: the search’s objective, no knee table, and the configuration the search found; none found is said plainly', async () => {
    const load = { model: 'rate' as const, rate: 2000, connections: 100 };
    const s = run([
      ...reps({ workers: 2, cpu: 1000, mem: 1024, load }, [2000], [21000]),
      ...reps({ workers: 2, cpu: 500, mem: 1024, load }, [1650], [900000]),
      ...reps({ workers: 2, cpu: 750, mem: 1024, load }, [1998], [38000]),
    ], { name: 'size hello' });
    const spec = {
      app: 'hello', slo: { p99Ms: 50, minRps: 2000, maxErrorPct: 0.1 }, rate: 2000, bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 1024 }, workers: { min: 2, max: 2 }, modes: ['cluster' as const] },
      durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 250, memoryStepMb: 32, connections: 100,
    };
    const steps = s.cells.map((c, i) => ({ cellId: c.id, mode: 'cluster' as const, workers: 2, cpuMillis: c.config.cpuMillis, memoryMb: 1024, reason: 'r', outcome: i === 1 ? ('misses' as const) : ('meets' as const), detail: 'd' }));
    const found = { ...s, search: { spec, steps, status: 'found' as const, found: { mode: 'cluster' as const, workers: 2, cpuMillis: 750, memoryMb: 1024 }, words: 'w', gridCells: 4, bestSoFar: null } };
    const recF = answerOf(found);
    fakeEngine.answers['runs.recommend'] = () => recF;
    fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => deployAnswer(found, recF, undefined, cellId);
    const view = render(Report, { props: { runId: 1 } });
    const pre = await shown();
    expect(pre.textContent).toBe(deploySnippet('pm2', recommendedDeploy(recF)!));
    expect(screen.getByTestId('search-objective').textContent).toContain('p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %');
    expect(screen.queryAllByTestId('deploy-row')).toHaveLength(0);
    expect(screen.getByTestId('answer').textContent).toContain('Auto-size answer: cluster × 2 workers, 0.75 CPU, 1 GB (hello) is the cheapest configuration the search found');
    expect(screen.getByText('The configuration the search found', { exact: false })).toBeTruthy();
    view.unmount();

    const none = { ...found, search: { ...found.search, status: 'none' as const, found: null } };
    const recN = answerOf(none);
    fakeEngine.answers['runs.recommend'] = () => recN;
    fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => {
      try {
        return deployAnswer(none, recN, undefined, cellId);
      } catch (e) {
        throw Object.assign(new Error((e as Error).message), { data: { code: 'NOT_FOUND', message: (e as Error).message } });
      }
    };
    render(Report, { props: { runId: 1 } });
    await vi.waitFor(() => expect(screen.getByTestId('deploy-error').textContent).toContain("no configuration within the search's bounds met p99 ≤ 50 ms at 2,000 req/s"));
    expect(screen.getByTestId('answer').textContent).toContain('Auto-size answer: no configuration within the bounds met');
  });
});
