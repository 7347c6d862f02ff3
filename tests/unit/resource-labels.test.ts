// CPU and memory as every listing says them, and Kubernetes quantities: one rule each (common/).
import { describe, expect, it } from 'vitest';
import { k8sCpu, k8sMemory } from '../../src-main/common/k8s-quantity.ts';
import { cpuLabel, exactCpu, memLabel, pairLabel } from '../../src-main/common/resource-labels.ts';

describe('resource labels', () => {
  it('says CPU with at most two decimals, plural above one CPU', () => {
    expect([250, 500, 1000, 1500, 2000, 1050, 625].map(cpuLabel)).toEqual(['0.25 CPU', '0.5 CPU', '1 CPU', '1.5 CPUs', '2 CPUs', '1.05 CPUs', '0.63 CPU']);
  });

  it('says a cap exactly as set: millicores where two decimals would round it', () => {
    expect([750, 2000, 625, 1375].map(exactCpu)).toEqual(['0.75 CPU', '2 CPUs', '625m CPU', '1375m CPU']);
  });

  it('says memory in MB, whole GB as GB, and a pair with both', () => {
    expect([256, 1024, 1536, 4096].map(memLabel)).toEqual(['256 MB', '1 GB', '1536 MB', '4 GB']);
    expect(pairLabel(2000, 512)).toBe('2 CPUs / 512 MB');
  });
});

describe('Kubernetes quantities', () => {
  it('are millicores and mebibytes', () => {
    expect([k8sCpu(500), k8sCpu(2000), k8sMemory(256), k8sMemory(160.4)]).toEqual(['500m', '2000m', '256Mi', '160Mi']);
  });
});
