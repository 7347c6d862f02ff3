// Saved targets as providers: 'local' (this machine's engine, implicit) and every saved one, each
// made into its Provider once per connection and kept (one client per connection, as Podman
// Desktop does), and the connection check in words.
import type Docker from 'dockerode';
import { didYouMean, type Problem } from '../common/issues.ts';
import { fmtBytes } from '../common/format.ts';
import { docker } from '../docker/client.ts';
import type { Provider, ProviderCheck } from '../providers/provider.ts';
import { makeProvider } from '../providers/registry.ts';
import type { Store } from '../store/store.ts';
import {
  LOCAL_TARGET,
  TargetInputSchema,
  targetWhere,
  validateTarget,
  type SavedTarget,
  type ValidateOptions,
} from './settings.ts';
import type { TargetCheck, TargetInfo } from './types.ts';

/** A name that is neither 'local' nor saved: the message names the likeliest one and lists them all. */
export class UnknownTargetError extends Error {
  readonly code = 'UNKNOWN_TARGET';
  constructor(
    readonly target: string,
    readonly known: readonly string[],
  ) {
    super(
      `There is no target named "${target}".${didYouMean(target, known)} Targets: ${known.join(', ')}. ` +
        'Add one with `rightsize targets add`.',
    );
    this.name = 'UnknownTargetError';
  }
}

/** A stored target whose settings this Rightsize cannot read (written by a newer one, or edited by hand). */
export class UnreadableTargetError extends Error {
  readonly code = 'UNREADABLE_TARGET';
}

export type ResolvedTarget = { name: 'local'; kind: 'local' } | SavedTarget;

/**
 * The target a run asks for by name (`rightsize run --target NAME`, the Builder's picker): 'local'
 * (also for no name), or a saved one with its settings. Throws UnknownTargetError with did-you-mean.
 */
export function resolveTarget(store: Store, name: string | undefined): ResolvedTarget {
  if (name === undefined || name === LOCAL_TARGET) return { name: LOCAL_TARGET, kind: 'local' };
  const stored = store.targets.get(name);
  if (!stored) throw new UnknownTargetError(name, [LOCAL_TARGET, ...store.targets.list().map((t) => t.name)]);
  const parsed = TargetInputSchema.safeParse({ name: stored.name, kind: stored.kind, settings: stored.settings });
  if (!parsed.success)
    throw new UnreadableTargetError(
      `The saved target "${name}" cannot be read by this Rightsize ` +
        `(${parsed.error.issues[0]?.message ?? 'unknown settings'}): remove it and add it again.`,
    );
  return parsed.data;
}

/** A check's nodes and problems as lines (the CLI prints them; the UI shows the same facts). */
export function checkLines(c: TargetCheck): string[] {
  const nodes = c.nodes.map(
    (n) =>
      `  ${n.name}: ${n.cpus} CPU${n.cpus === 1 ? '' : 's'}, ${fmtBytes(n.memoryBytes)}, ${n.free ? 'free' : 'busy'}`,
  );
  return [
    `${c.name} (${c.kind}): ${c.summary}`,
    ...(nodes.length ? ['nodes:', ...nodes] : []),
    ...(c.problems.length ? ['problems:', ...c.problems.map((p) => `  - ${p}`)] : []),
  ];
}

function summarize(c: ProviderCheck): string {
  const free = c.nodes.filter((n) => n.free).length;
  const facts = c.nodes.length
    ? `${c.nodes.length} node${c.nodes.length === 1 ? '' : 's'}, ` +
      `${free} free${c.version ? ` (version ${c.version})` : ''}`
    : 'no node answered';
  const n = c.problems.length;
  return c.ok ? `ok: ${facts}` : `not ready: ${facts}; ${n || 'a'} problem${n > 1 ? 's' : ''}`;
}

export class TargetRegistry {
  /** One provider (and so one client) per target and connection: changed settings make a new one. */
  private readonly providers = new Map<string, { key: string; provider: Provider }>();

  constructor(
    private readonly store: Store,
    /** Where images are shipped from to remote engines (this machine's engine). */
    private readonly source: () => Docker = docker,
  ) {}

  list(): TargetInfo[] {
    const saved = this.store.targets.list().map((t): TargetInfo => {
      const parsed = TargetInputSchema.safeParse({ name: t.name, kind: t.kind, settings: t.settings });
      return {
        name: t.name,
        kind: t.kind,
        builtIn: false,
        where: parsed.success
          ? targetWhere(parsed.data)
          : 'settings this Rightsize cannot read: remove it and add it again',
        settings: t.settings as Record<string, unknown>,
        createdAt: t.createdAt,
      };
    });
    return [{ name: LOCAL_TARGET, kind: 'local', builtIn: true, where: targetWhere({ kind: 'local' }) }, ...saved];
  }

  /** Validates and saves a target; every problem at once, nothing saved unless all are fixed. */
  async add(
    input: unknown,
    o: Omit<ValidateOptions, 'taken'> = {},
  ): Promise<{ ok: true; info: TargetInfo } | { ok: false; problems: Problem[] }> {
    const v = await validateTarget(input, { ...o, taken: this.store.targets.list().map((t) => t.name) });
    if (!v.ok) return v;
    this.store.targets.add({ name: v.target.name, kind: v.target.kind, settings: v.target.settings });
    return { ok: true, info: this.list().find((t) => t.name === v.target.name)! };
  }

  /** Removes a saved target; 'local' cannot be. Throws UnknownTargetError for a name not saved. */
  remove(name: string): boolean {
    if (name === LOCAL_TARGET)
      throw new Error(`"local" is this machine's Docker engine: it is always there and cannot be removed.`);
    if (!this.store.targets.get(name))
      throw new UnknownTargetError(
        name,
        this.list().map((t) => t.name),
      );
    this.providers.delete(name);
    return this.store.targets.delete(name);
  }

  /** The provider of a target by name (made once per connection). */
  provider(name: string | undefined): Provider {
    const t = resolveTarget(this.store, name);
    const key = JSON.stringify(t);
    const cached = this.providers.get(t.name);
    if (cached?.key === key) return cached.provider;
    const provider = this.make(t);
    this.providers.set(t.name, { key, provider });
    return provider;
  }

  private make(t: ResolvedTarget): Provider {
    return makeProvider('settings' in t ? t : null, () => this.source());
  }

  /**
   * Connects and checks, in words. A target that cannot even be set up (a TLS file gone since) is a problem, not a
   * throw.
   */
  async check(name: string): Promise<TargetCheck> {
    const kind = resolveTarget(this.store, name).kind; // unknown names throw UnknownTargetError
    let c: ProviderCheck;
    try {
      c = await this.provider(name).check();
    } catch (e) {
      c = { ok: false, problems: [(e as Error).message], nodes: [] };
    }
    return {
      name,
      kind,
      ok: c.ok,
      summary: summarize(c),
      problems: c.problems,
      nodes: c.nodes,
      ...(c.version ? { version: c.version } : {}),
      checkedAt: new Date().toISOString(),
    };
  }
}

/** `checkTarget(store, name)`: one check without keeping a registry (scripts, the CLI). */
export function checkTarget(store: Store, name: string): Promise<TargetCheck> {
  return new TargetRegistry(store).check(name);
}
