// Parsing of the kubelet's summary JSON and cAdvisor's Prometheus text, as recorded in
// tests/fixtures/k8s (shapes: stats/v1alpha1 Summary and kubelet /metrics/cadvisor), into
// StatsReadings. Verified against recorded responses, not a live kubelet.
import { describe, expect, it } from 'vitest';
import {
  CounterCarry,
  cadvisorContainer,
  keepSeries,
  summaryContainer,
  toReading,
  type KubeletSummary,
} from '../../src-main/providers/kubernetes/stats.ts';
import { fixture, fixtureText } from './k8s-fake-api.ts';

const REF = { namespace: 'rightsize-run-7', pod: 'cell-3-6b8f5d7c9d-k2x7p', container: 'app' };
const MiB = 1024 * 1024;

describe('kubelet summary', () => {
  it("reads the app container's CPU time, working set and the kubelet's timestamp", () => {
    const s = summaryContainer(fixture<KubeletSummary>('summary.json'), REF);
    expect(s).toEqual({
      atMs: Date.parse('2026-11-20T10:15:30Z'),
      cpuNs: 12345678901,
      memBytes: 98304000,
      memLimitBytes: 512 * MiB, // availableBytes + workingSetBytes
    });
  });

  it('finds nothing for another pod, another namespace or another container', () => {
    const sum = fixture<KubeletSummary>('summary.json');
    expect(summaryContainer(sum, { ...REF, pod: 'cell-4-aaaaaaaaaa-bbbbb' })).toBeUndefined();
    expect(summaryContainer(sum, { ...REF, namespace: 'default' })).toBeUndefined();
    expect(summaryContainer(sum, { ...REF, container: 'sidecar' })).toBeUndefined();
    // kube-proxy is on the same node: its numbers are not ours
    expect(summaryContainer(sum, { namespace: 'kube-system', pod: 'kube-proxy-7x9vq', container: 'kube-proxy' })?.cpuNs).toBe(3456789012345);
  });
});

describe('cAdvisor metrics', () => {
  it('keeps only the series it reads before parsing', () => {
    const kept = keepSeries(fixtureText('cadvisor.txt')).split('\n');
    expect(kept.some((l) => l.includes('machine_cpu_cores') || l.includes('cadvisor_version_info') || l.includes('container_cpu_usage_seconds_total'))).toBe(false);
    expect(kept.filter((l) => l.startsWith('container_cpu_cfs_throttled_periods_total{')).length).toBe(2);
    expect(kept).toContain('# TYPE container_oom_events_total counter');
  });

  it("reads the app container's throttling, peak, limit and OOM events, not the pod cgroup's or another pod's", () => {
    expect(cadvisorContainer(fixtureText('cadvisor.txt'), REF)).toEqual({
      throttledPeriods: 187,
      throttledSeconds: 9.482311,
      periods: 262,
      memMax: 117440512,
      memLimit: 512 * MiB,
      oomEvents: 0,
    });
  });

  it('after a restart, reads the new container (newest sample), not the old one still listed', () => {
    const v = cadvisorContainer(fixtureText('cadvisor-after-restart.txt'), REF);
    expect(v.throttledPeriods).toBe(12);
    expect(v.throttledSeconds).toBe(0.604118);
    expect(v.oomEvents).toBe(1);
  });

  it('reads nothing from an empty page (cAdvisor unreadable: throttling unknown)', () => {
    expect(cadvisorContainer('', REF)).toEqual({});
  });
});

describe('StatsReading', () => {
  it('combines both sources', () => {
    const s = summaryContainer(fixture<KubeletSummary>('summary.json'), REF)!;
    expect(toReading(s, cadvisorContainer(fixtureText('cadvisor.txt'), REF), 256 * MiB)).toEqual({
      atMs: Date.parse('2026-11-20T10:15:30Z'),
      cpuNs: 12345678901,
      memBytes: 98304000,
      memLimitBytes: 512 * MiB,
      throttledPeriods: 187,
      throttledNs: 9482311000,
      memPeakBytes: 117440512,
    });
  });

  it('falls back to the cap for the limit and leaves the peak out when cAdvisor has none (cgroup v2 reports 0)', () => {
    const r = toReading({ atMs: 1, cpuNs: 2, memBytes: 3 }, { memMax: 0 }, 256 * MiB);
    expect(r.memLimitBytes).toBe(256 * MiB);
    expect(r).not.toHaveProperty('memPeakBytes');
    expect(r.throttledPeriods).toBe(0);
  });

  it('keeps counters cumulative across a container restart', () => {
    const carry = new CounterCarry();
    const read = (s: string, c: string) => toReading(summaryContainer(fixture<KubeletSummary>(s), REF)!, cadvisorContainer(fixtureText(c), REF), 512 * MiB);
    const a = carry.apply(read('summary.json', 'cadvisor.txt'));
    const b = carry.apply(read('summary-later.json', 'cadvisor-later.txt'));
    const c = carry.apply(read('summary-after-restart.json', 'cadvisor-after-restart.txt'));
    expect(b.cpuNs - a.cpuNs).toBe(19518532741 - 12345678901);
    expect(b.throttledPeriods - a.throttledPeriods).toBe(301 - 187);
    // The restarted container counts from 0 again: the carry adds what was counted before.
    expect(c.cpuNs).toBe(19518532741 + 1234567890);
    expect(c.throttledPeriods).toBe(301 + 12);
    expect(c.throttledNs).toBe(Math.round(15.873004 * 1e9) + Math.round(0.604118 * 1e9));
    expect(c.memBytes).toBe(60293120); // a gauge: not carried
  });
});
