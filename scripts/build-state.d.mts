// Types for build-state.mjs (imported by the tests).
export declare const BUILD_OUTPUTS: string[];
export declare const BUILD_SOURCES: string[];
export declare function newestMtime(root: string, paths: string[]): number;
export declare function buildState(root: string, o?: { outputs?: string[]; sources?: string[] }): { stale: boolean; reason: 'missing' | 'changed' | 'fresh' };
