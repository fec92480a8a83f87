# Multi-stage: build with dev dependencies, run with production ones only, as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY src ./src
COPY scripts ./scripts
COPY bench ./bench
COPY web ./web
RUN npm run build

FROM node:20-bookworm-slim AS run
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# package.json's start script is the one place the node flags are written (V8's heap sized for a server): the
# image runs that command itself, exec'd so node is PID 1 and receives SIGTERM (npm start would rebuild first).
CMD ["/bin/sh", "-c", "exec $(node -p \"require('./package.json').scripts.start\")"]
