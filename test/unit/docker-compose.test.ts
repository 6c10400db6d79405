import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { KEEL_SEARCH_ATTRIBUTES } from '../../src/dev-server/search-attributes';

// No Docker engine runs where keel is tested, so the compose file's structure is checked instead.
const ROOT = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      container_name?: string;
      ports?: string[];
      volumes?: string[];
      environment?: Record<string, string>;
      command?: string[] | string;
      depends_on?: unknown;
    }
  >;
};
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test('the stack has PostgreSQL, Temporal, its Web UI, the search-attribute setup and a keel worker', () => {
  assert.deepEqual(Object.keys(compose.services).sort(), [
    'keel-worker',
    'postgresql',
    'temporal',
    'temporal-setup',
    'temporal-ui',
  ]);
  assert.match(compose.services.temporal?.image ?? '', /^temporalio\/auto-setup:/);
  assert.equal(compose.services.temporal?.environment?.DB, 'postgres12');
  assert.equal(compose.services.temporal?.environment?.POSTGRES_SEEDS, 'postgresql');
});

test('Temporal and the Web UI publish their ports', () => {
  assert.ok(compose.services.temporal?.ports?.includes('7233:7233'));
  assert.ok(compose.services['temporal-ui']?.ports?.includes('8080:8080'));
  assert.equal(compose.services['temporal-ui']?.environment?.TEMPORAL_ADDRESS, 'temporal:7233');
});

test('the worker reaches Temporal, takes the key from the environment, and runs what npm run worker runs', () => {
  const worker = compose.services['keel-worker'];
  assert.equal(worker?.build, '.');
  assert.ok(existsSync(path.join(ROOT, 'Dockerfile')));
  assert.equal(worker?.environment?.TEMPORAL_ADDRESS, 'temporal:7233');
  assert.match(worker?.environment?.ANTHROPIC_API_KEY ?? '', /^\$\{ANTHROPIC_API_KEY/);
  // node as the container's process, not npm: npm runs a script through sh, which does not pass
  // docker stop's SIGTERM on, so the worker would be killed without its graceful shutdown.
  const command = Array.isArray(worker?.command) ? worker.command : [];
  assert.deepEqual(command, ['node', 'bin/keel-worker.js']);
  assert.equal(packageJson.scripts.worker, command.join(' '), 'npm run worker runs the same command');
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, /^CMD \["node", "bin\/keel-worker\.js"\]$/m);
  assert.match(readFileSync(path.join(ROOT, 'bin/keel-worker.js'), 'utf8'), /loadKeel\('worker'\)/);
});

test('the worker scales (--scale keel-worker=N): no fixed name or host port, each replica its own host', () => {
  const worker = compose.services['keel-worker'];
  assert.equal(worker?.container_name, undefined, 'replicas cannot share a container name');
  assert.equal(worker?.ports, undefined, 'replicas cannot share a published port');
  assert.equal(worker?.environment?.KEEL_HOST_ID, undefined, 'the host id is each container’s hostname');
  assert.equal(worker?.environment?.KEEL_WORKSPACE_ROOTS, '/workspaces');
  assert.ok(worker?.volumes?.includes('./workspaces:/workspaces'));
  assert.equal(worker?.environment?.KEEL_JOURNAL_DIR, undefined, 'the journal lives beside each workspace');
  assert.equal(worker?.environment?.KEEL_BACKUP_DIR, undefined, 'so do the backups');
});

test('the image compiles the TypeScript and ships dist/ without src/, so the worker starts from JavaScript', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, /^RUN npm run build$/m);
  assert.match(dockerfile, /^COPY --from=build \/app\/dist \.\/dist$/m);
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  assert.doesNotMatch(finalStage, /^COPY src/m, 'src/ next to dist/ would make the launcher compare dates');
  assert.match(finalStage, /apt-get install .*\bgit\b/, 'a host clones workspaces it is asked to prepare');
  // Temporal and zod are peer dependencies: the image installs them as its own, not as dev ones.
  assert.match(
    finalStage,
    /Object\.assign\(p\.dependencies, p\.peerDependencies\); delete p\.devDependencies;[^]*^RUN npm install --omit=dev/m,
  );
});

test('the setup service registers exactly keel search attributes', () => {
  const command = compose.services['temporal-setup']?.command;
  const text = Array.isArray(command) ? command.join(' ') : String(command);
  for (const [name, type] of Object.entries(KEEL_SEARCH_ATTRIBUTES))
    assert.ok(text.includes(`${name}=${type}`), name);
  assert.equal(text.match(/Keel\w+=\w+/g)?.length, Object.keys(KEEL_SEARCH_ATTRIBUTES).length);
});
