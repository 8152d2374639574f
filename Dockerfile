# The Nocturne image: the worker, the HTTP API and the schedule one-shot of docker-compose.yml.
FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY policies ./policies
USER node
CMD ["node", "bin/nocturne.mjs", "worker"]
