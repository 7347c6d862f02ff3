import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Apps from '../../src-renderer/routes/Apps.svelte';
import type { AppInfo, TryOutResult, UserApp } from '../../src-main/contract/api.ts';
import { userAppInfo } from '../../src-main/apps/app-info.ts';
import { fakeEngine, up } from './setup.ts';

const koa: UserApp = { name: 'koa', description: '', port: 3000, health: '/', env: {}, requests: [{ method: 'GET', path: '/items/7', status: 200 }], source: { kind: 'folder', dir: '/srv/koa', entry: 'server.js', args: [] } };

const found: TryOutResult = {
  app: 'koa', ok: false, image: 'rightsize/app-user-koa:1', built: true, answered: true, startSec: 0.4, waitedSec: 0.4, logTail: [],
  probes: [
    { kind: 'health', method: 'GET', path: '/', expected: '2xx', ok: false, answers: [{ status: 404, ms: 2 }, { status: 404, ms: 2 }, { status: 404, ms: 2 }] },
    { kind: 'request', method: 'GET', path: '/items/7', expected: 200, ok: true, answers: [{ status: 200, ms: 3 }, { status: 200, ms: 3 }, { status: 200, ms: 3 }] },
    { kind: 'guess', method: 'GET', path: '/health', expected: '2xx', ok: true, answers: [{ status: 200, ms: 1 }] },
  ],
  suggestions: [{ kind: 'health', path: '/health', because: 'the health path / answered 404, while GET /health answered 200' }],
};

let apps: AppInfo[];
beforeEach(() => {
  apps = [userAppInfo(koa)];
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['apps.tryOut'] = () => found;
  fakeEngine.answers['apps.update'] = (i: unknown) => {
    const app = (i as { app: UserApp }).app;
    apps = [userAppInfo(app)];
    return apps[0];
  };
});

describe('Try it on the Apps screen', () => {
  it('shows what answered and saves the suggested health path in one click, then tries again', async () => {
    render(Apps, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-try-koa')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-try-koa'));
    const result = await vi.waitFor(() => screen.getByTestId('try-result'));
    const rows = within(result).getAllByTestId('try-probe').map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent!.trim()).join(' | '));
    expect(rows[0]).toBe('✗ | health path | GET / | 404 ×3 | 2xx | 2 ms');
    expect(rows[1]).toBe('✓ | request | GET /items/7 | 200 ×3 | 200 | 3 ms');
    expect(within(result).getByTestId('try-suggestion').textContent).toContain('the health path / answered 404, while GET /health answered 200');
    await fireEvent.click(within(result).getByTestId('try-use-health'));
    await vi.waitFor(() => expect(fakeEngine.calls.filter((c) => c.name === 'apps.tryOut')).toHaveLength(2));
    const update = fakeEngine.calls.find((c) => c.name === 'apps.update')!.input as { name: string; app: UserApp };
    expect(update).toMatchObject({ name: 'koa', app: { health: '/health', port: 3000 } });
    expect(screen.getByTestId('apps-notice').textContent).toContain('koa now uses /health as its health path');
  });

  it('is off while a run is in progress, and says why', async () => {
    render(Apps, { props: { status: { ...up, activeRunId: 4 } } });
    const button = await vi.waitFor(() => screen.getByTestId('app-try-koa'));
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(button.getAttribute('title')).toBe('Try is off: run 4 is in progress');
  });
});
