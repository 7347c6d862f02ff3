// Plain types of saved targets as the contract carries them (no runtime code: the renderer imports these).
import type { ProviderNode, TargetKind } from '../providers/provider.ts';

export type { ProviderNode, TargetKind };

/** A target as listed: 'local' (implicit) or a saved one. Settings hold URLs and file paths only. */
export interface TargetInfo {
  name: string;
  kind: TargetKind;
  /** 'local' is always there and cannot be removed. */
  builtIn: boolean;
  /** Where it is, in one line (URL, TLS folder, kubeconfig and context). */
  where: string;
  settings?: Record<string, unknown>;
  createdAt?: string;
}

/** A connection check in words: ok, or every problem (unreachable, TLS, permissions, no nodes free). */
export interface TargetCheck {
  name: string;
  kind: TargetKind;
  ok: boolean;
  /** One sentence: "ok: 1 node, 1 free (Docker 20.10.24)" or the first problem. */
  summary: string;
  problems: string[];
  nodes: ProviderNode[];
  version?: string;
  checkedAt: string;
}
