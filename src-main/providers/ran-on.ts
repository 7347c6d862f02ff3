import type { RanOn } from '../model/types.ts';

/**
 * Whether a stored cell ran on this machine's engine with its load in this process's threads (the
 * cells whose load-thread readings say something about this host). Cells stored before `ranOn` was
 * recorded ran here.
 */
export const ranOnThisMachine = (r: RanOn | null | undefined): boolean => !r || (r.kind === 'local' && !r.loadNode);
