import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TracingConfigError, tracingExporters } from '../../src/tracing/tracing-settings';

/**
 * Issue 14: a worker's start is mostly loading modules. OpenTelemetry, the MCP SDK and the YAML
 * parser are loaded only by a worker whose environment or config file asks for them. Timings are no test (`npm run bench`
 * measures the start); what keeps the start short is checked here: which modules a start loads.
 */

const ROOT = path.resolve(__dirname, '../..');
const OPEN_TELEMETRY = ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http'];
const HEAVY = [...OPEN_TELEMETRY, '@modelcontextprotocol/sdk', 'yaml'];

/** The heavy packages in the module cache after `script` ran in a fresh process (source, via tsx). */
function heavyLoadedAfter(script: string, env: NodeJS.ProcessEnv = {}): string[] {
  const report = execFileSync(
    process.execPath,
    [
      '--require',
      'tsx/cjs',
      '-e',
      `(async () => {
         ${script}
         const loaded = Object.keys(require.cache);
         const heavy = ${JSON.stringify(HEAVY)}.filter((name) =>
           loaded.some((file) => file.includes('node_modules/' + name + '/')));
         process.stdout.write(JSON.stringify(heavy));
       })().catch((error) => { console.error(error); process.exit(1); });`,
    ],
    { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
  );
  return JSON.parse(report) as string[];
}

test('loading the worker module loads neither OpenTelemetry nor the MCP SDK nor the YAML parser', () => {
  assert.deepEqual(heavyLoadedAfter(`require('./src/worker.ts');`), []);
});

test('process tracing loads OpenTelemetry only when the environment turns tracing on', () => {
  const script = `
    const { processTracing } = require('./src/tracing/process-tracing.ts');
    const tracing = await processTracing();
    if (tracing) await tracing.shutdown();`;
  assert.deepEqual(heavyLoadedAfter(script), []);
  assert.deepEqual(heavyLoadedAfter(script, { OTEL_TRACES_EXPORTER: 'none' }), []);
  assert.deepEqual(heavyLoadedAfter(script, { OTEL_TRACES_EXPORTER: 'console' }), OPEN_TELEMETRY);
});

test('tracing settings: off unless an exporter or an OTLP endpoint is named; a bad name is one error', () => {
  assert.deepEqual(tracingExporters({}), []);
  assert.deepEqual(tracingExporters({ OTEL_TRACES_EXPORTER: 'none,console' }), []);
  assert.deepEqual(tracingExporters({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'TRUE' }), []);
  assert.deepEqual(tracingExporters({ OTEL_TRACES_EXPORTER: ' OTLP , console,otlp' }), ['otlp', 'console']);
  assert.deepEqual(tracingExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318' }), [
    'otlp',
  ]);
  assert.throws(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'jaeger' }), TracingConfigError);
});
