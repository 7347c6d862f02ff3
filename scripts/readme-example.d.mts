// Types of scripts/readme-example.mjs, for the tests that check README's example against the CLI.
export const START: string;
export const END: string;
export const COMMAND: string[];
export const MAX_WIDTH: number;
export function exampleBlock(output: string, tmp?: string): string;
export function replaceExample(readme: string, block: string): string;
