// A lost connection fails a cell as "unreachable", never as an exit code or the app's own failure.
import { describe, expect, it } from 'vitest';
import { unreachableReason } from '../../src-main/engine/cell-runner.ts';

const err = (message: string, code?: string): Error => Object.assign(new Error(message), code ? { code } : {});

describe('unreachableReason', () => {
  it('names connection errors unreachable, with what the network said', () => {
    expect(unreachableReason(err('read ECONNRESET', 'ECONNRESET'))).toBe('unreachable: read ECONNRESET');
    expect(unreachableReason(err('connect EHOSTUNREACH 10.77.0.2:2375', 'EHOSTUNREACH'))).toBe('unreachable: connect EHOSTUNREACH 10.77.0.2:2375');
    expect(unreachableReason(err('socket hang up'))).toBe('unreachable: socket hang up');
    expect(unreachableReason(err('lost the load agent on node-2: aborted'))).toBe('unreachable: lost the load agent on node-2: aborted');
  });

  it('leaves every other failure as it is', () => {
    expect(unreachableReason(err('the Swarm did not run the cell\'s service (rejected: No such image: x)'))).toBeUndefined();
    expect(unreachableReason(err('(HTTP code 409) conflict'))).toBeUndefined();
  });
});
