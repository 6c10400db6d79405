import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describeModelRequestStore } from '../../src/activities/model/request-store/create-model-request-store';
import { reflectionStoreConfigFromEnv } from '../../src/activities/reflection-store/create-reflection-store';
import { hostSettings } from '../../src/config/host-settings';
import { KEEL_SEARCH_ATTRIBUTES } from '../../src/dev-server/search-attributes';

// No Docker engine runs where keel is tested, so the compose file's structure is checked instead.
const ROOT = path.resolve(__dirname, '../..');
interface Service {
  image?: string;
  build?: string;
  container_name?: string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  command?: string[] | string;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: unknown;
  restart?: string;
}
const composeText = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText) as { services: Record<string, Service> };
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test('the stack has PostgreSQL, Temporal, its Web UI, the search-attribute setup, keel’s database and a keel worker', () => {
  assert.deepEqual(Object.keys(compose.services).sort(), [
    'keel-database',
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

/** The services that run a keel worker: each is a keel host, or a replica of one. */
function workers(): [string, Service][] {
  return Object.entries(compose.services).filter(([, service]) =>
    (Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '')).includes(
      'bin/keel-worker.js',
    ),
  );
}

function environmentOf(service: Service): Record<string, string> {
  return service.environment ?? {};
}

/** The service the file tells operators to scale (`--scale NAME=3` in its opening comment). */
const scaled = /--scale ([\w-]+)=/.exec(composeText)?.[1];

test('the worker scales (--scale keel-worker=N): no fixed name or host port', () => {
  assert.equal(scaled, 'keel-worker');
  assert.deepEqual(
    workers().map(([name]) => name),
    ['keel-worker'],
  );
  for (const [name, worker] of workers()) {
    assert.equal(worker.container_name, undefined, `${name}: replicas cannot share a container name`);
    assert.equal(worker.ports, undefined, `${name}: replicas cannot share a published port`);
  }
});

/** The roots are the container's paths (its mounts), which this machine does not have. */
const inTheContainer = (root: string) => (root.startsWith('/workspaces') ? undefined : 'is not mounted');

test('every worker names its host in the file, not by its hostname, so a recreated container is the same host', () => {
  for (const [name, worker] of workers()) {
    const hostId = environmentOf(worker).KEEL_HOST_ID;
    assert.ok(
      hostId !== undefined,
      `${name}: KEEL_HOST_ID is set (a container's hostname changes on recreate)`,
    );
    assert.doesNotMatch(hostId, /\$/, `${name}: KEEL_HOST_ID is fixed, not taken from whoever runs compose`);
    // keel's own reading of the worker's environment, in a container whose hostname is random.
    const settings = hostSettings({}, environmentOf(worker), '3f9c2a7d1b6e', inTheContainer);
    assert.equal(settings.hostId, hostId, `${name}: the worker's host id is the one the file sets`);
  }
});

test("a host's replicas say they are replicas and share its disk; different hosts have different disks", () => {
  const diskOfHost = new Map<string, string>();
  const hostOfDisk = new Map<string, string>();
  for (const [name, worker] of workers()) {
    const environment = environmentOf(worker);
    const settings = hostSettings({}, environment, '3f9c2a7d1b6e', inTheContainer);
    assert.equal(settings.workspaceRoots.length, 1, `${name}: one workspace root`);
    const root = settings.workspaceRoots[0] ?? '';
    const mounts = (worker.volumes ?? []).map((volume) => volume.split(':'));
    const mount = mounts.find((parts) => parts[1] === root);
    // A mount with no source is an anonymous volume: each container its own, lost on recreate.
    assert.ok(mount?.[0], `${name}: the workspace root ${root} is a bind mount or a named volume`);
    const disk = mount[0];
    const isReplica =
      name === scaled ||
      workers().some(
        ([other, service]) => other !== name && environmentOf(service).KEEL_HOST_ID === settings.hostId,
      );
    if (isReplica)
      assert.equal(
        environment.KEEL_HOST_REPLICA,
        '1',
        `${name}: live workers of one host id must be replicas`,
      );
    else
      assert.equal(environment.KEEL_HOST_REPLICA, undefined, `${name}: a lone host needs no replica claim`);
    const known = diskOfHost.get(settings.hostId);
    assert.ok(
      known === undefined || known === disk,
      `${name}: the replicas of ${settings.hostId} share one disk`,
    );
    const owner = hostOfDisk.get(disk);
    assert.ok(owner === undefined || owner === settings.hostId, `${name}: ${disk} is ${owner ?? ''}'s disk`);
    diskOfHost.set(settings.hostId, disk);
    hostOfDisk.set(disk, settings.hostId);
  }
});

test('the commands the file and the Docker guide give name the host and root the workers have', () => {
  const guide = readFileSync(path.join(ROOT, 'docs/several-machines.md'), 'utf8');
  const docker = guide.slice(guide.indexOf('## Running it for real with Docker'));
  for (const [name, worker] of workers()) {
    const settings = hostSettings({}, environmentOf(worker), '3f9c2a7d1b6e', inTheContainer);
    const root = settings.workspaceRoots[0] ?? '';
    // The workspace path is the containers', not one on the operator's machine, so keel run must
    // name the host: without --host it looks for the path where it runs and refuses.
    const run = new RegExp(`keel run "[^"]*" --workspace ${root}/\\S+ --host ${settings.hostId}\\b`);
    assert.match(composeText, run, `${name}: the file's keel run names host ${settings.hostId}`);
    assert.match(docker, run, `${name}: the guide's keel run names host ${settings.hostId}`);
  }
});

test('the journal and backups stay beside each workspace, on the disk the replicas of its host share', () => {
  for (const [name, worker] of workers()) {
    assert.equal(
      environmentOf(worker).KEEL_JOURNAL_DIR,
      undefined,
      `${name}: the journal lives beside each workspace`,
    );
    assert.equal(environmentOf(worker).KEEL_BACKUP_DIR, undefined, `${name}: so do the backups`);
  }
});

test("the model-request and reflection stores are in the stack's PostgreSQL, in the database keel-database creates", () => {
  const setup = compose.services['keel-database'];
  const setupCommand = Array.isArray(setup?.command) ? setup.command.join(' ') : String(setup?.command);
  for (const [name, worker] of workers()) {
    const environment = environmentOf(worker);
    // keel's own reading of the variables: a value it does not take as PostgreSQL fails here.
    assert.match(describeModelRequestStore(environment), /^PostgreSQL /, `${name}: KEEL_MODEL_REQUESTS`);
    const reflections = reflectionStoreConfigFromEnv(environment);
    assert.equal(reflections.kind, 'postgres', `${name}: KEEL_REFLECTION_STORE`);
    const urls = [
      environment.KEEL_MODEL_REQUESTS ?? '',
      reflections.kind === 'postgres' ? reflections.connectionString : '',
    ];
    for (const url of urls.map((text) => new URL(text))) {
      const database = compose.services[url.hostname];
      assert.match(database?.image ?? '', /^postgres:/, `${name}: ${url.hostname} is the stack's PostgreSQL`);
      assert.ok(url.port === '' || url.port === '5432', `${name}: PostgreSQL's port`);
      assert.equal(url.username, database?.environment?.POSTGRES_USER, `${name}: the database's user`);
      assert.equal(url.password, database?.environment?.POSTGRES_PASSWORD, `${name}: the user's password`);
      const databaseName = url.pathname.slice(1);
      assert.ok(
        !['', 'postgres', 'temporal', 'temporal_visibility'].includes(databaseName),
        `${name}: keel's tables in a database of their own, not in Temporal's (${databaseName})`,
      );
      assert.equal(
        /\bcreatedb (\S+)/.exec(setupCommand)?.[1],
        databaseName,
        `keel-database creates ${databaseName}`,
      );
      assert.ok(setupCommand.includes(`datname = '${databaseName}'`), 'and only when it is missing');
      assert.equal(setup?.environment?.PGHOST, url.hostname, 'keel-database creates it on that server');
      assert.equal(setup?.environment?.PGUSER, url.username, 'as the user the workers connect as');
      assert.equal(setup?.environment?.PGPASSWORD, url.password);
    }
  }
});

/** src's text, to check that a variable is one keel reads: `env.NAME` or the name as a string. */
const sourceText = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => readFileSync(path.join(ROOT, 'src', file), 'utf8'))
  .join('\n');

function keelReads(variable: string): boolean {
  return new RegExp(`env\\??\\.${variable}\\b|['"\`]${variable}['"\`]`).test(sourceText);
}

/**
 * Set by this file for the host claim of issue 23, which is built beside it: until that lands src
 * does not read it. Once src reads it, the test below says so, and it leaves this list.
 */
test('every variable a worker is given is one keel reads, so a misspelt one fails here', () => {
  assert.ok(
    keelReads('KEEL_WORKSPACE_ROOTS') && !keelReads('KEEL_WORKSPACE_ROOT'),
    'the check itself tells them apart',
  );
  for (const [name, worker] of workers()) {
    for (const variable of Object.keys(environmentOf(worker))) {
      assert.ok(keelReads(variable), `${name}: keel reads no ${variable}`);
    }
  }
});

test('services start in order: every condition waited on is one the service can meet', () => {
  const worker = compose.services['keel-worker'];
  assert.deepEqual(worker?.depends_on, {
    'temporal-setup': { condition: 'service_completed_successfully' },
    'keel-database': { condition: 'service_completed_successfully' },
  });
  assert.deepEqual(compose.services['keel-database']?.depends_on, {
    postgresql: { condition: 'service_healthy' },
  });
  for (const [name, service] of Object.entries(compose.services)) {
    const dependencies: Record<string, { condition?: string }> = Array.isArray(service.depends_on)
      ? Object.fromEntries(service.depends_on.map((dependency) => [dependency, {}]))
      : (service.depends_on ?? {});
    for (const [dependency, { condition }] of Object.entries(dependencies)) {
      const target = compose.services[dependency];
      assert.ok(target, `${name} depends on a service of the file, ${dependency}`);
      if (condition === 'service_healthy') assert.ok(target.healthcheck, `${dependency} has a healthcheck`);
      // A one-shot with a restart policy would run again and again after it has done its work.
      if (condition === 'service_completed_successfully')
        assert.equal(target.restart, 'no', `${dependency} runs once`);
    }
  }
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
