// Loads a keel module (a path under src/, without extension) for the launchers in this folder:
// the compiled JavaScript in dist/ (`npm run build`; the install and test scripts run it) when it
// is at least as new as every file under src/, otherwise the TypeScript source through tsx. So a
// fresh clone works before any build, a source edit is never shadowed by stale JavaScript, and an
// installed package (dist/ without src/) never needs tsx. Compiling with tsx at every start is
// what made each `keel` command take seconds.
const { readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
// tsc rewrites every output on each build, so one of them dates the whole build.
const BUILD_MARKER = path.join(DIST, 'index.js');

function modifiedMs(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether dist/ holds a build no older than the newest file under src/ (src/ absent: yes). */
function compiledIsCurrent() {
  const builtAt = modifiedMs(BUILD_MARKER);
  if (builtAt === undefined) return false;
  let entries;
  try {
    entries = readdirSync(SRC, { recursive: true, withFileTypes: true });
  } catch {
    return true; // an installed package ships dist/ only
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const changedAt = modifiedMs(path.join(entry.parentPath ?? entry.path, entry.name));
    if (changedAt !== undefined && changedAt > builtAt) return false;
  }
  return true;
}

/** `KEEL_FROM_SOURCE=1` forces the TypeScript source (e.g. to debug with source maps of tsx). */
function loadKeel(modulePath) {
  try {
    if (process.env.KEEL_FROM_SOURCE !== '1' && compiledIsCurrent()) {
      return require(path.join(DIST, `${modulePath}.js`));
    }
    require('tsx/cjs');
    return require(path.join(SRC, `${modulePath}.ts`));
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === undefined) throw error;
    // A clone before `npm install` (or a copy without node_modules): one line, not a stack trace.
    console.error(
      `keel: dependencies are not installed (cannot find ${missing}); run npm install (or npm ci) in ${ROOT}`,
    );
    process.exit(1);
  }
}

/** The package a module-not-found error names, when it is a package (not one of keel's files). */
function missingPackage(error) {
  if (error === null || typeof error !== 'object' || error.code !== 'MODULE_NOT_FOUND') return undefined;
  const named = /Cannot find module '([^']+)'/.exec(String(error.message))?.[1];
  if (named === undefined || named.startsWith('.') || path.isAbsolute(named)) return undefined;
  return named;
}

module.exports = { loadKeel, compiledIsCurrent };
