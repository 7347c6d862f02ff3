// The image a cell runs, as docker/app-image.ts and folder-image.ts give it back: its own file, so the
// two builders share it without importing each other.

/** The image a cell runs: its tag, its entry, and whether this call built it. */
export interface AppImage {
  tag: string;
  /** The entry file's absolute path inside the image ('' for an image app: it runs its own command). */
  entry: string;
  /** Whether this call had to build it. */
  built: boolean;
  /** The exact Node.js version its processes run (its base's), where known; never for an image app. */
  nodeVersion?: string;
  /** An image app's own NODE_OPTIONS (its ENV): a cell's flags are appended to it, not put in its place. */
  nodeOptions?: string;
}
