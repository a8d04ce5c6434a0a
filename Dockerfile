# cairn: build the TypeScript, then run `cairn serve` on its embedded defaults.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY schemas ./schemas
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
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
ENTRYPOINT ["node", "bin/cairn.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
