import { describe, expect, it } from 'vitest';
import { parseScopeLabels } from '../../src-main/docker/labels.ts';

describe('RIGHTSIZE_LABELS', () => {
  it('reads key=value pairs, spaces and empty items aside', () => {
    expect(parseScopeLabels('')).toEqual({ labels: {} });
    expect(parseScopeLabels(' ci-job=1234 , team=payments,')).toEqual({ labels: { 'ci-job': '1234', team: 'payments' } });
    expect(parseScopeLabels('example.com/lane=a=b')).toEqual({ labels: { 'example.com/lane': 'a=b' } });
  });

  it('refuses an item that is not key=value, and the product’s own labels, saying which', () => {
    expect(parseScopeLabels('team')).toEqual({ problem: expect.stringMatching(/^"team" is not key=value \(e\.g\. RIGHTSIZE_LABELS=/) });
    expect(parseScopeLabels('team=')).toEqual({ problem: expect.stringMatching(/^"team=" is not key=value/) });
    expect(parseScopeLabels('=x')).toEqual({ problem: expect.stringMatching(/^"=x" is not key=value/) });
    expect(parseScopeLabels('ok=1,io.rightsize.session=x')).toEqual({ problem: '"io.rightsize.session": labels under io.rightsize. are Rightsize\'s own' });
  });
});
