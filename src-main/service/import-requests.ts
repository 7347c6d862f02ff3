// The Apps form's import: a HAR or an access log, read in the UI, made into a weighted mix here. A pure
// call: nothing is saved, and a file it cannot read comes back as its problem (naming the line), not an error.
import type { CallInput, CallOutput } from '../contract/api.ts';
import { importRequests } from '../mix/import/index.ts';

type Handler<K extends 'apps.importRequests'> = (input: CallInput<K>) => CallOutput<K>;

export function importHandlers(): { 'apps.importRequests': Handler<'apps.importRequests'> } {
  return {
    'apps.importRequests': ({ text, fileName, keepStatic, allHosts }) =>
      importRequests(text, fileName, {
        ...(keepStatic ? { keepStatic: true } : {}),
        ...(allHosts ? { allHosts: true } : {}),
      }),
  };
}
