// `rightsize targets add`: each option lands in the setting it names, and one kind's option on another kind is a problem.
import { describe, expect, it } from 'vitest';
import { targetFromOptions } from '../../src-main/cli/commands/targets.ts';

describe('targets add options', () => {
  it('takes a Kubernetes image registry and the path of its login', () => {
    const r = targetFromOptions('k', { kubernetes: true, context: 'prod', registry: 'registry.example.com/rs', registryAuth: '/home/me/.docker/config.json' });
    expect(r.problems).toEqual([]);
    expect(r.target).toEqual({ name: 'k', kind: 'kubernetes', settings: { context: 'prod', registry: 'registry.example.com/rs', registryAuth: '/home/me/.docker/config.json' } });
  });

  it('refuses a registry on a Docker target, naming what that kind takes', () => {
    const r = targetFromOptions('d', { docker: 'tcp://box:2375', registry: 'r.example.com' });
    expect(r.problems).toEqual([{ path: '--registry', message: 'is not used by a docker target (it takes --tls, --ssh-key).' }]);
  });
});
