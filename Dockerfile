# The keel worker image used by docker-compose.yml. TypeScript is compiled in a build stage, so the
# worker starts from JavaScript: with dist/ and no src/, bin/keel-worker.js runs dist/worker.js
# (see bin/load-keel.js). Its workflow bundles are built here too, from dist/workflows, so a
# container starts from one instead of bundling for seconds at every start (docs/performance.md).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build
# One bundle for each combination of encryption and tracing (src/worker/bundle-file.ts): what a
# bundle holds depends on both, and the container's environment decides them, not the image.
RUN node -e "require('./dist/workflow-bundle-file').writeWorkflowBundles('/app/workflow-bundles')"

FROM node:20-bookworm-slim
# git: a host clones a goal's workspace from its source when the goal moves to it (prepareWorkspace).
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Temporal and zod are keel's peer dependencies (a project using keel shares its one copy of each),
# and --omit=dev would leave them out: the image is that project, so they become its dependencies.
RUN node -e "const p = require('./package.json'); Object.assign(p.dependencies, p.peerDependencies); delete p.devDependencies; require('fs').writeFileSync('package.json', JSON.stringify(p))"
# npm install rather than npm ci: see scripts/lib/ensure.sh
RUN npm install --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY --from=build /app/workflow-bundles ./workflow-bundles
# bin/keel-worker.js loads the bundle in it that fits (KEEL_WORKFLOW_BUNDLE, if set, still wins).
ENV KEEL_WORKFLOW_BUNDLE_DIR=/app/workflow-bundles
COPY scenarios ./scenarios
COPY bin ./bin
USER node
# node itself, not `npm run worker`: npm runs the script through sh, which does not pass SIGTERM on,
# so `docker stop` killed the worker without its graceful shutdown; npm also adds its own start-up.
CMD ["node", "bin/keel-worker.js"]
