// The load agent's image on each engine that runs agents, shipped once per engine (concurrent
// cells wait on the same shipping); a failed one is tried again by the next cell.
import type Docker from 'dockerode';
import { prepareLoadAgent } from './remote-load.ts';

export class LoadAgentImages {
  private readonly shipped = new Map<string, Promise<string>>();

  /** The agent's tag on `engine` (`key`: one per engine, e.g. its node id or URL). */
  on(key: string, engine: Docker, where: string): Promise<string> {
    let p = this.shipped.get(key);
    if (!p) {
      p = prepareLoadAgent(engine, where);
      this.shipped.set(key, p);
      p.catch(() => this.shipped.delete(key));
    }
    return p;
  }
}
