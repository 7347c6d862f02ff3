// Kubernetes resource quantities, as the lab's own manifests and the deploy snippets write them: CPU in
// millicores ("500m", "2000m"), memory in mebibytes ("256Mi"; Docker's --memory 256m is 256 MiB too).

export const k8sCpu = (millis: number): string => `${Math.round(millis)}m`;
export const k8sMemory = (mb: number): string => `${Math.round(mb)}Mi`;
