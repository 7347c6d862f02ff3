// Types for parse-prometheus-text-format (the package ships none): its output follows prom2json's.
declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    value: string;
    labels?: Record<string, string>;
    timestamp_ms?: string;
  }
  export interface PromFamily {
    name: string;
    help: string;
    type: string;
    metrics: PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
