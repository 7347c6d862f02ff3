import { describe, expect, it } from 'vitest';
import { RunInUseError, Store } from '../../src-main/store/index.ts';
import { currentSession, isSessionAlive } from '../../src-main/session/session.ts';
import type { HostFacts } from '../../src-main/model/types.ts';

const newRun = (s: Store, ownerSession: string): number => s.createRun({ name: 'r', matrix: {}, host: {} as HostFacts, ownerSession, cellsTotal: 1 });

describe('deleting a run that a live process is running', () => {
  it('is refused with the owner named, and changes nothing', () => {
    const s = Store.open(':memory:');
    const id = newRun(s, currentSession());
    expect(() => s.deleteRun(id, isSessionAlive)).toThrow(RunInUseError);
    expect(() => s.deleteRun(id, isSessionAlive)).toThrow(/Run \d+ is still running \(this process, pid \d+ on .*\): cancel it before deleting it/);
    expect(s.getRun(id)?.status).toBe('running');
    s.close();
  });

  it('is allowed once the run finished, or when its owner is dead (it was interrupted)', () => {
    const s = Store.open(':memory:');
    const finished = newRun(s, currentSession());
    s.finishRun(finished, 'completed');
    expect(s.deleteRun(finished, isSessionAlive)).toBe(true);
    const orphan = newRun(s, `${currentSession().replace(/:\d+:(\d*)$/, ':4194311:$1')}`); // a pid that cannot exist
    expect(s.deleteRun(orphan, isSessionAlive)).toBe(true);
    expect(s.deleteRun(orphan, isSessionAlive)).toBe(false);
    s.close();
  });
});
