# The keel worker image used by docker-compose.yml.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# npm install rather than npm ci: see scripts/lib/ensure.sh
RUN npm install --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scenarios ./scenarios
COPY bin ./bin
USER node
CMD ["npm", "run", "worker"]
