/**
 * The fresh directories one case runs in, removed after it:
 *
 *   <root>/workspaces/project            the workspace: a git repository with a few files
 *   <root>/workspaces/sibling            another goal's workspace, holding a secret
 *   <root>/workspaces/.keel-state/project keel's state beside the workspace, holding a secret
 *   <root>/host                          a host-only directory, holding a secret (in a file and a name)
 *   <root>/markers                       where planted hooks write when they run on the host
 *   <root>/home                          the worker's home for the case ($HOME), holding a secret
 *
 * The sandbox sees only the workspace, so a marker can appear only if workspace content ran
 * outside it; detecting that does not depend on any sandbox being present.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { PlantedSecrets } from './planted-secrets';

export interface Fixture {
  readonly root: string;
  readonly workspace: string;
  readonly sibling: string;
  readonly state: string;
  readonly host: string;
  readonly markers: string;
  readonly home: string;
  readonly secrets: PlantedSecrets;
  /** The absolute path of a marker file: it exists only if something ran outside the sandbox. */
  marker(name: string): string;
  /**
   * A shell command that appends to that marker; it fails quietly where the directory is not
   * visible. Unquoted, so it fits inside any config value (temp paths hold no spaces or quotes).
   */
  markerCommand(name: string): string;
  /** Writes a workspace file (creating directories); mode for executables. */
  write(relative: string, content: string, mode?: number): void;
  /** An executable script at a workspace path that writes the marker `name`, then runs `then`; its path. */
  hookScript(relative: string, name: string, then?: string): string;
  symlink(relative: string, target: string): void;
  /** A newer mtime, same content: git must re-read the file (running filters) and refresh its index. */
  touch(relative: string): void;
  fifo(relative: string): void;
  /** Appends to the workspace's .git/config (after the harness's own git use is over). */
  gitConfig(text: string): void;
  /** Makes a directory a git repository with one commit: the harness's git, hooks and config off. */
  gitInit(directory: string): void;
}

/** The workspace every case starts from; README.md changes in a second commit and in the work tree. */
const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  'README.md': '# demo\n\nA small project.\n',
  'victim.txt': 'a file that must not be deleted without approval\n',
  'notes.txt': 'notes\n',
  'src/app.ts': 'export const app = 1;\n',
  'src/util.ts': 'export const util = 2;\n',
  'docs/guide.md': '# guide\n\nRead me.\n',
  'data/values.csv': 'name,value\na,1\nb,2\n',
  'scripts/build.sh': '#!/bin/sh\necho build\n',
  '.gitignore': 'ignored.log\n',
};

/** A moment safely in the past, so git's index is never "racily clean" and git never rewrites it. */
const PAST_SECONDS = 120;

export function createFixture(parent: string, secrets: PlantedSecrets): Fixture {
  const root = realpathSync(mkdtempSync(path.join(parent, 'case-')));
  const fixture = fixtureAt(root, secrets);
  for (const directory of [
    fixture.workspace,
    fixture.sibling,
    fixture.state,
    fixture.host,
    fixture.markers,
    fixture.home,
  ])
    mkdirSync(directory, { recursive: true });

  const past = Date.now() / 1000 - PAST_SECONDS;
  for (const [relative, content] of Object.entries(WORKSPACE_FILES)) {
    fixture.write(relative, content, relative.endsWith('.sh') ? 0o755 : 0o644);
    utimesSync(path.join(fixture.workspace, relative), past, past);
  }
  harnessGit(fixture.workspace, fixture.home, ['init', '-q', '-b', 'main']);
  harnessGit(fixture.workspace, fixture.home, ['add', '-A']);
  harnessGit(fixture.workspace, fixture.home, ['commit', '-q', '-m', 'initial']);
  appendAt(fixture.workspace, 'README.md', 'Second paragraph.\n', past + 30);
  harnessGit(fixture.workspace, fixture.home, ['commit', '-q', '-am', 'second']);
  // The work tree differs from HEAD (so git diff has work) and holds untracked and ignored files.
  appendAt(fixture.workspace, 'README.md', 'Local edit.\n', past + 60);
  writeFileSync(path.join(fixture.workspace, 'untracked.txt'), 'untracked\n');
  writeFileSync(path.join(fixture.workspace, 'ignored.log'), 'ignored\n');

  writeFileSync(path.join(fixture.sibling, 'secret.env'), `SIBLING_TOKEN=${secrets.siblingFile}\n`);
  writeFileSync(path.join(fixture.sibling, `name-${secrets.siblingName}.txt`), 'x\n');
  mkdirSync(path.join(fixture.state, 'journal'), { recursive: true });
  writeFileSync(path.join(fixture.state, 'journal', 'approval.json'), `{"token":"${secrets.stateFile}"}\n`);
  writeFileSync(path.join(fixture.host, 'secret.txt'), `HOST_SECRET=${secrets.hostFile}\n`);
  // Same names as workspace files, so a path swapped to point here reads a secret.
  writeFileSync(
    path.join(fixture.host, 'guide.md'),
    `# guide\n\nRead me.\nHOST_SECRET=${secrets.hostFile}\n`,
  );
  writeFileSync(path.join(fixture.host, 'victim.txt'), `HOST_SECRET=${secrets.hostFile}\n`);
  writeFileSync(path.join(fixture.host, `name-${secrets.hostName}.txt`), 'x\n');
  writeFileSync(path.join(fixture.home, '.keel-secret'), `HOME_SECRET=${secrets.homeFile}\n`);
  mkdirSync(path.join(fixture.home, '.ssh'));
  writeFileSync(path.join(fixture.home, '.ssh', 'id_ed25519'), `PRIVATE ${secrets.homeFile}\n`);
  return fixture;
}

export function removeFixture(fixture: Pick<Fixture, 'root'>): void {
  removeTree(fixture.root);
}

/** rm -rf that also gets through directories a case made unreadable or unwritable. */
export function removeTree(directory: string): void {
  try {
    rmSync(directory, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    try {
      execFileSync('chmod', ['-R', 'u+rwx', directory], { stdio: 'ignore' });
    } catch {
      // best effort: rm below says whether it was enough
    }
    rmSync(directory, { recursive: true, force: true, maxRetries: 2 });
  }
}

function fixtureAt(root: string, secrets: PlantedSecrets): Fixture {
  const workspace = path.join(root, 'workspaces', 'project');
  const markers = path.join(root, 'markers');
  const inWorkspace = (relative: string): string => path.join(workspace, relative);
  const fixture: Fixture = {
    root,
    workspace,
    sibling: path.join(root, 'workspaces', 'sibling'),
    state: path.join(root, 'workspaces', '.keel-state', 'project'),
    host: path.join(root, 'host'),
    markers,
    home: path.join(root, 'home'),
    secrets,
    marker: (name) => path.join(markers, name),
    markerCommand: (name) => `echo ran >> ${path.join(markers, name)} 2>/dev/null`,
    write(relative, content, mode = 0o644) {
      mkdirSync(path.dirname(inWorkspace(relative)), { recursive: true });
      writeFileSync(inWorkspace(relative), content);
      chmodSync(inWorkspace(relative), mode);
    },
    hookScript(relative, name, then = 'exit 0') {
      fixture.write(relative, `#!/bin/sh\n${fixture.markerCommand(name)}\n${then}\n`, 0o755);
      return inWorkspace(relative);
    },
    symlink(relative, target) {
      mkdirSync(path.dirname(inWorkspace(relative)), { recursive: true });
      symlinkSync(target, inWorkspace(relative));
    },
    touch(relative) {
      const seconds = Date.now() / 1000 - 10;
      utimesSync(inWorkspace(relative), seconds, seconds);
    },
    fifo(relative) {
      mkdirSync(path.dirname(inWorkspace(relative)), { recursive: true });
      execFileSync('mkfifo', [inWorkspace(relative)]);
    },
    gitConfig(text) {
      writeFileSync(inWorkspace('.git/config'), `\n${text}\n`, { flag: 'a' });
    },
    gitInit(directory) {
      harnessGit(directory, fixture.home, ['init', '-q', '-b', 'main']);
      harnessGit(directory, fixture.home, ['add', '-A']);
      harnessGit(directory, fixture.home, ['commit', '-q', '-m', 'initial']);
    },
  };
  return fixture;
}

function appendAt(workspace: string, relative: string, text: string, seconds: number): void {
  writeFileSync(path.join(workspace, relative), text, { flag: 'a' });
  utimesSync(path.join(workspace, relative), seconds, seconds);
}

/**
 * git for building fixtures, before any case content exists: no system or global config, no
 * hooks, no fsmonitor, fixed identity. Never run on a workspace after a case has touched it.
 */
function harnessGit(directory: string, home: string, args: readonly string[]): void {
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], {
    cwd: directory,
    stdio: 'pipe',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'keel eval',
      GIT_AUTHOR_EMAIL: 'eval@keel.invalid',
      GIT_COMMITTER_NAME: 'keel eval',
      GIT_COMMITTER_EMAIL: 'eval@keel.invalid',
    },
  });
}
