# cairn: build the TypeScript into dist/, then run `cairn serve` on its embedded defaults with
# production dependencies only (tsx, typescript and the other dev dependencies stay in the build stage).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Dependencies first, for the layer cache: `prepare` (the build) needs the sources, which come
# next, so install without scripts and build the one native module here.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY schemas ./schemas
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
# The local vendor's databases are real PostgreSQL clusters: the server binaries (initdb, pg_ctl,
# pg_dump, pg_restore) come with the image; clusters run as the image's unprivileged user.
RUN apt-get update && apt-get install -y --no-install-recommends postgresql && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production CAIRN_DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY schemas ./schemas
COPY examples ./examples
VOLUME /data
EXPOSE 8080
USER node
# No src/ in the image: bin/cairn.js runs dist/ without the stale-dist check.
ENTRYPOINT ["node", "bin/cairn.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
