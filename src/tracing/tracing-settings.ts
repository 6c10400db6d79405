/**
 * Which exporters the OTEL_* environment asks for, without loading OpenTelemetry: a process whose
 * environment turns tracing off (the default) never pays for the OTel SDK at start.
 */

export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
}

export type TracingExporter = 'console' | 'otlp';

/**
 * OTEL_TRACES_EXPORTER (a comma list of `console`, `otlp`, `none`), else `otlp` when an OTLP
 * endpoint is set, else none; OTEL_SDK_DISABLED=true turns every exporter off.
 */
export function tracingExporters(env: NodeJS.ProcessEnv): TracingExporter[] {
  const raw = env.OTEL_TRACES_EXPORTER?.trim();
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  if (!raw) {
    const endpoint =
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    return endpoint ? ['otlp'] : [];
  }
  const names = raw
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('none')) return [];
  for (const name of names) {
    if (name !== 'console' && name !== 'otlp') {
      throw new TracingConfigError(
        `OTEL_TRACES_EXPORTER must list console, otlp or none; got ${JSON.stringify(name)}`,
      );
    }
  }
  return [...new Set(names)] as TracingExporter[];
}
